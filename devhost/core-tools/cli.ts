/**
 * `func start`, as far as our app can tell, for the tests and benchmarks of the Core Tools loop
 * (Core Tools itself cannot be installed here). Like Core Tools it reads local.settings.json's
 * `Values` into the environment (variables already set win), requires FUNCTIONS_WORKER_RUNTIME=node
 * and a storage connection (`UseDevelopmentStorage=true` is Azurite on 10000-10002, which it does
 * not start), sets WEBSITE_HOSTNAME=localhost:<port>, and does not build. Like the Node worker it
 * loads package.json `main` through the worker API (./core-api) and awaits the appStart hooks; then
 * it serves what was registered (./serve). SIGINT or SIGTERM runs the appTerminate hooks.
 *
 *   node dist/devhost/core-tools/cli.js [--port 7071] [--settings local.settings.json]
 *
 * Prints one line `{"ready":"http://localhost:<port>",...}` once serving.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { applyLocalSettings } from '../../shared/config/local-settings';
import { isDevelopmentStorage, probeStoragePorts, WELL_KNOWN_PORTS, freePort } from '../azurite';
import { PROJECT_ROOT } from '../paths';
import type { HttpFunction, QueueFunction, TimerFunction } from '../../shared/functions';
import { FunctionsWorker } from './core-api';
import { registeredFunctions } from './serve';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({ options: { port: { type: 'string', default: '7071' }, settings: { type: 'string', default: 'local.settings.json' } } });
  const settingsFile = path.resolve(args.settings!);
  if (!applyLocalSettings(settingsFile).found) fail(`${settingsFile} not found (npm run func:prepare creates it)`);

  if (process.env.FUNCTIONS_WORKER_RUNTIME !== 'node') fail('FUNCTIONS_WORKER_RUNTIME must be "node" in local.settings.json');
  const storage = process.env.AzureWebJobsStorage;
  if (!storage && !process.env.AzureWebJobsStorage__accountName)
    fail('Missing value for AzureWebJobsStorage in local.settings.json: it is required by the queue trigger and timers');
  if (isDevelopmentStorage(storage)) {
    const ports = await probeStoragePorts(WELL_KNOWN_PORTS);
    if (ports.state !== 'azurite')
      fail(
        `AzureWebJobsStorage=UseDevelopmentStorage=true but Azurite does not answer on ${WELL_KNOWN_PORTS.join(', ')} (${ports.state === 'taken' ? ports.detail : 'nothing listens'}): run npm run func:prepare`,
      );
  }

  const port = Number(args.port) || (await freePort());
  process.env.WEBSITE_HOSTNAME = `localhost:${port}`;

  const worker = new FunctionsWorker((level, category, message) => {
    if (category === 'system' && level !== 'error' && level !== 'warning') return;
    process.stderr.write(`[worker ${level}] ${message}\n`);
  });
  const { loadMs, appStartMs } = await worker.startApp(PROJECT_ROOT);

  // The host's side, loaded only now so the app's modules load first, as in the worker.
  const { buildRouteTable, createHttpServer } = await import('../http-server');
  const { startTimers } = await import('../timers');
  const { hostJsonQueueSettings, startQueuePollers } = await import('../queues');
  const { createLogger } = await import('../../shared/logging');
  const log = createLogger({ component: 'core-tools' });
  const functions = registeredFunctions(worker);
  const http = functions.filter((f): f is HttpFunction => f.kind === 'http');
  const server = createHttpServer(buildRouteTable(http), log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const timers = startTimers(
    functions.filter((f): f is TimerFunction => f.kind === 'timer'),
    log,
    process.env,
  );
  // The host's own side (polling queues on Azurite) reads storage through a platform of its own, as
  // the real host is another process than the worker: the app's platform is the worker's business.
  const { Platform, runInPlatform } = await import('../../shared/platform');
  const hostPlatform = new Platform(process.env);
  const queues = runInPlatform(hostPlatform, () =>
    startQueuePollers(
      functions.filter((f): f is QueueFunction => f.kind === 'queue'),
      hostJsonQueueSettings(),
      log,
      process.env,
    ),
  );

  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  process.stdout.write(`\nFunctions:\n\n${http.map((f) => `\t${f.name}: [${f.methods.join(',')}] ${origin}/${f.route}`).join('\n')}\n\n`);
  process.stdout.write(
    `${JSON.stringify({ ready: origin, functions: worker.functions.size, loadMs: Math.round(loadMs), appStartMs: Math.round(appStartMs) })}\n`,
  );

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    await timers.stop();
    await queues.stop();
    await hostPlatform.close();
    await worker.terminate();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((error) => fail(`Worker failed to start: ${(error as Error).stack}`));
