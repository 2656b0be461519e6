/**
 * Azure Functions entry point (package.json "main"). Registers the functions of the services named
 * in SERVICES with the v4 programming model, from the function index: no service's code is loaded
 * here, each service loads on its first invocation (cold start). Under the dev host and in tests
 * `app.*` is inert ("test mode"), so the dev host serves the registry itself.
 *
 * Start-up does nothing that can fail on a slow or unavailable dependency: there are no appStart
 * hooks (identity's bootstrap admin is retried in the background), and appTerminate stops what the
 * services hold (worker pools, buffered log rows) and flushes telemetry.
 */
import { app } from '@azure/functions';
import { Platform, runInPlatform } from '../shared/platform';
import { httpRegistration, inPlatform, type FunctionDefinition } from '../shared/functions';
import { instrument, startTelemetry, stopTelemetry, telemetryWanted } from '../shared/telemetry';
import { dataStorageConnection } from '../shared/storage-account';
import { MIGRATION_NAMES } from './migration-names';
import { serveServices } from './registry';
import { SETTINGS, type AppConfig } from './settings';

// The app's platform, from its settings; the migration history loads only if the embedded database
// opens (never in Azure) and lacks one of its steps. It is not the process's: every function runs
// in it through `inPlatform`, the wrapper the dev host uses, so code reached outside an invocation
// finds no platform and says so.
const platform = new Platform<AppConfig>(process.env, undefined, {
  settings: SETTINGS,
  migrations: () => (require('./migrations') as typeof import('./migrations')).MIGRATIONS,
  migrationNames: MIGRATION_NAMES,
});
const cfg = platform.config;
runInPlatform(platform, startTelemetry);
// Our log lines reach Application Insights themselves: the host need not forward them too.
app.setup({ enableHttpStream: false, ...(telemetryWanted() ? { capabilities: { WorkerOpenTelemetryEnabled: true } } : {}) });

function register(fn: FunctionDefinition): void {
  switch (fn.kind) {
    case 'http':
      app.http(fn.name, { route: fn.route, authLevel: 'anonymous', ...httpRegistration(fn) });
      break;
    case 'timer':
      app.timer(fn.name, { schedule: fn.schedule, runOnStartup: fn.runOnStartup ?? false, handler: fn.handler });
      break;
    case 'queue':
      // The data account's connection (PLATFORM_STORAGE in Azure; AzureWebJobsStorage locally, which then holds the data).
      app.storageQueue(fn.name, { queueName: fn.queueName, connection: dataStorageConnection(cfg), handler: fn.handler });
      break;
  }
}

const services = runInPlatform(platform, () => serveServices(cfg.SERVICES, { lazy: true, platform }));
for (const service of services) {
  for (const fn of service.functions) register(inPlatform(platform, instrument(fn, service.name)));
  // Only a stopped service has start-up work: logging why it is stopped.
  if (service.stopped) app.hook.appStart(() => runInPlatform(platform, () => service.start(platform)));
}

app.hook.appTerminate(() =>
  runInPlatform(platform, async () => {
    await Promise.allSettled(services.map((service) => service.stop(platform)));
    // The platform's pool, clients and caches (made from the app settings on first use).
    await platform.close();
    await stopTelemetry();
  }),
);
