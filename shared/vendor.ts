/**
 * The libraries a cold start pays for, loaded from one-file bundles that `npm run build` makes with
 * esbuild (scripts/build-vendor.ts, into dist/vendor) instead of from their files in node_modules.
 *
 * Why: Node resolves, reads and wraps every file of a package on its own, and these packages are
 * made of hundreds of small files; a bundle is one file, made from the packages' ES module builds
 * so that what they import but never use is left out. Measured on this project's machine, loading:
 * kysely 80 → 11 ms, @azure/storage-blob 140 → 38 ms, @azure/data-tables 86 → 25 ms, the
 * OpenTelemetry SDK 54 → 24 ms, ajv 25 → 9 ms, jose 29 → 10 ms. That was most of what stood between
 * a service's first health answer and its cold-start budget.
 *
 * The bundles hold exactly the versions in package-lock.json (they are built from node_modules) and
 * types still come from the packages. Our code takes these libraries' values only from here (a test
 * refuses a value import of them elsewhere), so one copy of each is ever loaded.
 */

/** Each bundle and the packages it holds (a bundle exports each package's namespace under the package's name). */
export const VENDOR_BUNDLES = {
  kysely: ['kysely'],
  ajv: ['ajv', 'ajv-formats'],
  jose: ['jose'],
  'storage-blob': ['@azure/storage-blob'],
  'storage-queue': ['@azure/storage-queue'],
  'data-tables': ['@azure/data-tables'],
  // ES modules only (no CommonJS build): bundled, it loads under require() and test runners alike. Loaded with a report's first words.
  'intl-messageformat': ['intl-messageformat'],
  // The Azure Monitor exporter stays in node_modules: it loads with the first batch sent, off any request's path.
  // The API is bundled too (from node_modules it cost 6-7 ms of a cold start with Application
  // Insights): its registry is a global (`Symbol.for('opentelemetry.js.api.1')`, and the logs API's
  // likewise), so the exporter's copy from node_modules, of the same locked version, finds the
  // providers this copy registers.
  opentelemetry: [
    '@opentelemetry/api',
    '@opentelemetry/api-logs',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/core',
    '@opentelemetry/resources',
    '@opentelemetry/sdk-logs',
    '@opentelemetry/sdk-trace-base',
  ],
} as const satisfies Record<string, readonly string[]>;

interface Vendored {
  kysely: typeof import('kysely');
  ajv: typeof import('ajv');
  'ajv-formats': typeof import('ajv-formats');
  jose: typeof import('jose');
  '@azure/storage-blob': typeof import('@azure/storage-blob');
  '@azure/storage-queue': typeof import('@azure/storage-queue');
  '@azure/data-tables': typeof import('@azure/data-tables');
  'intl-messageformat': typeof import('intl-messageformat');
  '@opentelemetry/api': typeof import('@opentelemetry/api');
  '@opentelemetry/api-logs': typeof import('@opentelemetry/api-logs');
  '@opentelemetry/context-async-hooks': typeof import('@opentelemetry/context-async-hooks');
  '@opentelemetry/core': typeof import('@opentelemetry/core');
  '@opentelemetry/resources': typeof import('@opentelemetry/resources');
  '@opentelemetry/sdk-logs': typeof import('@opentelemetry/sdk-logs');
  '@opentelemetry/sdk-trace-base': typeof import('@opentelemetry/sdk-trace-base');
}
type VendoredPackage = (typeof VENDOR_BUNDLES)[keyof typeof VENDOR_BUNDLES][number];

const bundleOf: ReadonlyMap<string, string> = new Map<string, string>(
  Object.entries(VENDOR_BUNDLES).flatMap(([bundle, packages]) => packages.map((name) => [name, bundle])),
);

/** A vendored package's exports, loaded (once, by Node's module cache) with its bundle on first use. A bundled package without its type above is a compile error here. */
export function vendored<P extends VendoredPackage>(name: P): Vendored[P] {
  return (require(`../vendor/${bundleOf.get(name)}.js`) as Vendored)[name];
}
