/**
 * Writes the one-file bundles of the libraries a cold start loads (shared/vendor.ts says which and
 * why) into dist/vendor, part of the deployed package. Run by `npm run build`.
 *
 * Each bundle is CommonJS for the Node version in package.json's engines and exports the packages'
 * namespaces keyed by package name. It is built from the packages' ES module builds where they ship
 * one, so esbuild drops what the packages import but never use (most of the OpenTelemetry semantic
 * conventions, the unused parts of the Azure core libraries): @azure/storage-blob loads in 40 ms
 * this way against 73 ms from its CommonJS build and 140 ms unbundled. It is built from
 * node_modules, so it holds the locked versions.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { VENDOR_BUNDLES } from '../shared/vendor';

const ROOT = path.resolve(__dirname, '..', '..');
const VENDOR_OUT = path.join(ROOT, 'dist', 'vendor');

async function main() {
  await Promise.all(
    Object.entries(VENDOR_BUNDLES).map(([bundle, packages]) =>
      build({
        stdin: {
          contents: [
            ...packages.map((name, i) => `import * as p${i} from ${JSON.stringify(name)};`),
            `export { ${packages.map((name, i) => `p${i} as ${JSON.stringify(name)}`).join(', ')} };`,
          ].join('\n'),
          resolveDir: ROOT,
          sourcefile: `vendor-${bundle}.js`,
          loader: 'js',
        },
        outfile: path.join(VENDOR_OUT, `${bundle}.js`),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        mainFields: ['module', 'main'],
        // ES module builds locate their files with import.meta.url, which CommonJS has not: give it the bundle's own URL.
        define: { 'import.meta.url': '__vendorBundleUrl' },
        banner: { js: "var __vendorBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
        // A warning here (a require esbuild cannot follow) would be a runtime failure later: stop the build.
        logLevel: 'warning',
      }).then((result) => {
        if (result.warnings.length) throw new Error(`vendor bundle ${bundle}: ${result.warnings.length} warning(s)`);
      }),
    ),
  );
}

if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
