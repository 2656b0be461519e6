/**
 * Driven by entry.test.ts, in a fresh process: loads package.json `main` the way the Node worker
 * does (devhost/core-tools/core-api), runs the appStart hooks, invokes the HTTP functions named in
 * argv[2] (in the host's operation `traceParent` when one is given), and prints one line `RESULT {...}`: what was registered, which hooks, which service
 * folders and which npm packages were loaded at start-up and after the invocations (and whether a
 * vendored one came from node_modules instead of its bundle), and what the invocations answered.
 */
import { FunctionsWorker } from '../../devhost/core-tools/core-api';
import { PROJECT_ROOT } from '../../devhost/paths';
import { VENDOR_BUNDLES } from '../../shared/vendor';

// A service's db/ folder is its part of the database (schema steps, the SQL they fill rollups with),
// not code that serves: the process that opens the embedded database (SQLite, never Azure SQL)
// loads every service's migration steps to apply the one history. Its settings.ts is its part of the
// configuration (declarations only): the entry point parses every served service's settings at start,
// so a missing required one stops the host there rather than failing a request.
const SERVICE_CODE = /[\\/]dist[\\/]functions[\\/](identity|payment|orchestrator|visual)[\\/](?!db[\\/]|settings\.js$)/;
const loadedServices = () =>
  [
    ...new Set(
      Object.keys(require.cache)
        .map((file) => SERVICE_CODE.exec(file)?.[1])
        .filter(Boolean),
    ),
  ].sort();

/** The services whose routes module is loaded (a service's health module alone does not load it). */
const routesLoaded = () =>
  Object.keys(require.cache)
    .map((file) => /[\\/]dist[\\/]functions[\\/](\w+)[\\/]routes\.js$/.exec(file)?.[1])
    .filter((name): name is string => Boolean(name))
    .sort();

const PACKAGE = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/;
const fromNodeModules = () => Object.keys(require.cache).flatMap((file) => PACKAGE.exec(file)?.[1].replace('\\', '/') ?? []);
// A vendor bundle (dist/vendor/<bundle>.js) counts as the packages it holds.
const VENDOR_FILE = /[\\/]dist[\\/]vendor[\\/]([^\\/]+)\.js$/;
const fromBundles = () =>
  Object.keys(require.cache).flatMap((file) => {
    const bundle = VENDOR_FILE.exec(file)?.[1] as keyof typeof VENDOR_BUNDLES | undefined;
    return bundle ? VENDOR_BUNDLES[bundle] : [];
  });
const loadedPackages = () => [...new Set([...fromNodeModules(), ...fromBundles()])].sort();
const VENDORED: string[] = Object.values(VENDOR_BUNDLES).flat();
const vendoredFromNodeModules = () => [...new Set(fromNodeModules().filter((name) => VENDORED.includes(name)))];

async function main() {
  const invocations = JSON.parse(process.argv[2] ?? '[]') as { name: string; path: string; traceParent?: string }[];
  const worker = new FunctionsWorker();
  await worker.startApp(PROJECT_ROOT);
  const loadedAtStart = loadedServices();
  const packagesAtStart = loadedPackages();
  const results = [];
  for (const { name, path, traceParent } of invocations) {
    // A pause between invocations: `{ name: 'wait', path: '<ms>' }`.
    if (name === 'wait') {
      await new Promise((resolve) => setTimeout(resolve, Number(path)));
      results.push({ name, routesLoaded: routesLoaded(), packages: loadedPackages(), vendoredFromNodeModules: vendoredFromNodeModules() });
      continue;
    }
    // The host's shutdown (appTerminate: telemetry is flushed): `{ name: 'terminate', path: '' }`.
    if (name === 'terminate') {
      await worker.terminate();
      results.push({ name });
      continue;
    }
    const result = await worker.invoke(name, {
      trigger: { http: { method: 'GET', url: `http://localhost:7071/${path}`, headers: {}, query: {}, params: {} } },
      ...(traceParent ? { traceContext: { traceParent, traceState: '', attributes: {} } } : {}),
    });
    const http = result.returnValue?.http;
    const body = http?.body?.bytes ? Buffer.from(http.body.bytes).toString('utf8') : http?.body?.string;
    results.push({
      name,
      status: http ? Number(http.statusCode) : undefined,
      body: body ? JSON.parse(body) : undefined,
      error: (result.error as Error | undefined)?.message,
      routesLoaded: routesLoaded(),
      packages: loadedPackages(),
    });
  }
  const report = {
    functions: [...worker.functions.values()].map(({ metadata, trigger }) => ({ name: metadata.name, trigger })),
    hooks: Object.fromEntries(Object.entries(worker.hooks).map(([name, list]) => [name, list.length])),
    capabilities: worker.capabilities,
    loadedAtStart,
    loadedAfter: loadedServices(),
    packagesAtStart,
    packagesAfter: loadedPackages(),
    vendoredFromNodeModules: vendoredFromNodeModules(),
    results,
  };
  process.stdout.write(`RESULT ${JSON.stringify(report)}\n`, () => process.exit(0));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
