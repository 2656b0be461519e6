/**
 * One cold-start sample, in a fresh process started by ./run: the Node worker's view of a Function
 * App start. Loads `package.json` `main` through the emulated worker API (as Azure does), awaits the
 * appStart hooks, then invokes `<SERVICE>-health` through the library's own conversions until it
 * answers 200; or, with BENCH_REQUEST (a JSON `{ fn, method, path, headers, body }`), that request
 * once, the first a user sends to a new instance (its status is reported as it came). Prints one JSON line: times in milliseconds, `firstOk` counted from process start,
 * and the modules loaded after start-up and after the first 200.
 */
import { FunctionsWorker } from '../../devhost/core-tools/core-api';
import { PROJECT_ROOT } from '../../devhost/paths';

async function main() {
  const service = process.env.BENCH_SERVICE!;
  // Node's own start and the worker emulation's modules, before the entry point loads.
  const bootMs = performance.now();
  const worker = new FunctionsWorker();
  const { loadMs, appStartMs } = await worker.startApp(PROJECT_ROOT);
  const modulesAtStart = Object.keys(require.cache).length;
  const invokeStarted = performance.now();
  let status = '';
  const order = process.env.BENCH_REQUEST
    ? (JSON.parse(process.env.BENCH_REQUEST) as {
        fn: string;
        method: string;
        path: string;
        headers: Record<string, string>;
        params?: Record<string, string>;
        body?: string;
      })
    : undefined;
  if (order) {
    const result = await worker.invoke(order.fn, {
      trigger: {
        http: {
          method: order.method,
          url: `http://localhost:7071/${order.path}`,
          headers: order.headers,
          query: {},
          params: order.params ?? {},
          ...(order.body === undefined ? {} : { body: { bytes: new Uint8Array(Buffer.from(order.body)) } }),
        },
      },
    });
    status = result.returnValue?.http?.statusCode ?? `error ${(result.error as Error)?.message}`;
    if (status !== '200') process.stderr.write(`${JSON.stringify(result.returnValue ?? result.error).slice(0, 2000)}\n`);
  }
  for (let attempt = 0; !order && attempt < 50 && status !== '200'; attempt++) {
    const result = await worker.invoke(`${service}-health`, {
      trigger: { http: { method: 'GET', url: `http://localhost:7071/${service}/health`, headers: {}, query: {}, params: {} } },
    });
    status = result.returnValue?.http?.statusCode ?? `error ${(result.error as Error)?.message}`;
    if (status !== '200') await new Promise((r) => setTimeout(r, 20));
  }
  const firstOk = performance.now();
  const body = {
    loadMs,
    appStartMs,
    bootMs,
    firstInvokeMs: firstOk - invokeStarted,
    firstOk,
    status,
    modulesAtStart,
    modules: Object.keys(require.cache).length,
  };
  // A real request that did not answer 200 fails the sample, with what it answered on stderr.
  process.stdout.write(JSON.stringify(body) + '\n', () => process.exit(order && status !== '200' ? 1 : 0));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
