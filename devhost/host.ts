import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serveServices } from '../functions/registry';
import { serviceUrl, type Config, type ServiceName } from '../shared/config';
import { leaveProcessPlatform, Platform, runInPlatform, setProcessPlatform, type Clock } from '../shared/platform';
import { inPlatform, type FunctionDefinition, type HttpFunction, type QueueFunction, type TimerFunction } from '../shared/functions';
import { createLogger } from '../shared/logging';
import { migrateToLatest, sqliteFile } from '../shared/sql/db';
import { dataStorageConnection } from '../shared/storage-account';
import { instrument, startTelemetry, stopTelemetry, telemetryReady } from '../shared/telemetry';
import { developmentStorageConnectionString, isDevelopmentStorage, probeStoragePorts, startAzurite, WELL_KNOWN_PORTS, type AzuriteHandle } from './azurite';
import { buildRouteTable, createHttpServer } from './http-server';
import { PROJECT_ROOT } from './paths';
import { hostJsonQueueSettings, startQueuePollers } from './queues';
import { loadLocalSettings } from './settings';
import { startTimers } from './timers';
import { MIGRATIONS } from '../functions/migrations';
import { MIGRATION_NAMES } from '../functions/migration-names';
import { SETTINGS, type AppConfig } from '../functions/settings';
import { startLocalStripe } from '../tools/stripe-emulator/local';

export { PROJECT_ROOT };

export interface DevHostOptions {
  /** local.settings.json to read, or to create from the sample when missing. */
  settingsFile?: string;
  /** Settings that win over the file and the environment (tests). */
  env?: Record<string, string>;
  /** Extra function definitions served beside the services' own (tests). */
  functions?: FunctionDefinition[];
  /** Keep Azurite's data under DATA_DIR/azurite (npm start) instead of in memory (tests). */
  persistStorage?: boolean;
  /** Print the start-up banner. */
  banner?: boolean;
  /** The platform's clock (tests move time with their own instead of faking the process's `Date`). */
  clock?: Clock;
}

export interface DevHost {
  url: string;
  serviceUrls: Record<ServiceName, string>;
  dataDir: string;
  azurite?: AzuriteHandle;
  /** The host's platform: its settings (a test changes them with `platform.reconfigure`), database, clients and caches. */
  platform: Platform<AppConfig>;
  stop(): Promise<void>;
}

interface LocalStorage {
  azurite?: AzuriteHandle;
  /** The connection string to use instead of the configured one. */
  connectionString?: string;
  description: string;
}

/**
 * The storage account the host uses. An account configured by name or connection string is used
 * as is. `UseDevelopmentStorage=true` means Azurite on the well-known ports 10000-10002, as with
 * `func start`: `npm start` uses the one running there (started by npm run func:prepare, so both
 * loops see the same data) or starts its own there; tests (in memory) get their own on free ports.
 * Unset: an Azurite of our own on free ports.
 */
async function localStorage(cfg: Config, persist: boolean): Promise<LocalStorage> {
  const configured = cfg.AzureWebJobsStorage;
  if (configured && !isDevelopmentStorage(configured)) return { description: 'configured storage account (AzureWebJobsStorage)' };
  if (!configured && cfg.AzureWebJobsStorage__accountName) return { description: `storage account ${cfg.AzureWebJobsStorage__accountName} (managed identity)` };
  const location = persist ? path.join(cfg.DATA_DIR, 'azurite') : undefined;
  if (configured && persist) {
    const ports = await probeStoragePorts(WELL_KNOWN_PORTS);
    if (ports.state === 'azurite')
      return {
        connectionString: developmentStorageConnectionString(),
        description: `Azurite already running on ${WELL_KNOWN_PORTS.join(', ')} (${ports.versions[0]})`,
      };
    if (ports.state === 'taken') {
      throw new Error(
        `AzureWebJobsStorage=UseDevelopmentStorage=true means Azurite on ports ${WELL_KNOWN_PORTS.join(', ')}, but ${ports.detail}. ` +
          'Free those ports, or set "AzureWebJobsStorage": "" in local.settings.json to run an Azurite of our own on free ports.',
      );
    }
    const azurite = await startAzurite({ location, ports: WELL_KNOWN_PORTS, host: '127.0.0.1' });
    return {
      azurite,
      connectionString: azurite.connectionString,
      description: `Azurite (pid ${azurite.pid}) on ${WELL_KNOWN_PORTS.join(', ')}, data in ${location}`,
    };
  }
  const azurite = await startAzurite({ location, host: '127.0.0.1' });
  return {
    azurite,
    connectionString: azurite.connectionString,
    description: `Azurite (pid ${azurite.pid})${location ? `, data in ${location}` : ', in memory'}`,
  };
}

/**
 * Serves the function registry the way the Functions host would: settings from
 * local.settings.json, Azurite for development storage, then HTTP, timer and queue triggers.
 * Stops cleanly and leaves no child process behind.
 */
export async function startDevHost(options: DevHostOptions = {}): Promise<DevHost> {
  const log = createLogger({ component: 'devhost' });
  const settingsFile = options.settingsFile ?? path.resolve('local.settings.json');
  const { values, created } = await loadLocalSettings(settingsFile, path.join(PROJECT_ROOT, 'local.settings.sample.json'));

  // As with `func`, variables already in the environment win over the file; explicit overrides win over both.
  // The host's platform holds them: process.env is never written.
  const settings: Record<string, string | undefined> = { ...values, ...process.env, ...options.env };
  settings.DATA_DIR = path.resolve(settings.DATA_DIR || '.data');
  const platform = new Platform<AppConfig>(settings, options.clock, { settings: SETTINGS, migrations: () => MIGRATIONS, migrationNames: MIGRATION_NAMES });
  setProcessPlatform(platform);

  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => log.error('shutdown step failed', { error }));
    cleanups.length = 0;
    await platform.close();
    await stopTelemetry();
    leaveProcessPlatform(platform);
  };

  try {
    return await runInPlatform(platform, () => serve(platform, options, { settingsFile, created, log, cleanups, stop }));
  } catch (error) {
    await stop();
    throw error;
  }
}

async function serve(
  platform: Platform<AppConfig>,
  options: DevHostOptions,
  host: { settingsFile: string; created: boolean; log: ReturnType<typeof createLogger>; cleanups: (() => Promise<void>)[]; stop: () => Promise<void> },
): Promise<DevHost> {
  const { settingsFile, created, log, cleanups, stop } = host;
  {
    let cfg = platform.config;
    startTelemetry();
    const services = serveServices(cfg.SERVICES, { lazy: false, platform });
    // Every function through the one wrapper the Functions entry point uses: each invocation in this host's platform.
    const functions = [...services.flatMap((s) => s.functions.map((fn) => instrument(fn, s.name))), ...(options.functions ?? [])]
      .filter((fn) => !functionDisabled(fn.name, platform.settings))
      .map((fn) => inPlatform(platform, fn));
    // Refuse reserved routes before starting anything, as the Functions host does.
    const routeTable = buildRouteTable(functions.filter((f): f is HttpFunction => f.kind === 'http'));

    const storage = await localStorage(cfg, Boolean(options.persistStorage));
    const azurite = storage.azurite;
    if (azurite) cleanups.push(() => azurite.stop());
    if (storage.connectionString) cfg = platform.reconfigure({ AzureWebJobsStorage: storage.connectionString });
    await telemetryReady();

    const server = createHttpServer(routeTable, log);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(cfg.PORT, cfg.HOST, () => resolve());
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const { port } = server.address() as AddressInfo;
    cfg = platform.reconfigure({ PORT: String(port) });

    // SQLite migrates itself on first use; a laptop pointed at Azure SQL gets the history applied here.
    if (cfg.SQL_SERVER) await migrateToLatest();
    // Offline mode's local Stripe API server, with this host's payment webhook registered (tooling, not deployed).
    if (services.some((s) => s.name === 'payment')) {
      const localStripe = await startLocalStripe();
      if (localStripe) cleanups.push(() => localStripe.stop());
    }
    for (const service of services) {
      await service.start(platform);
      cleanups.push(() => service.stop(platform));
    }

    const timers = startTimers(
      functions.filter((f): f is TimerFunction => f.kind === 'timer'),
      log,
      platform.settings,
    );
    cleanups.push(() => timers.stop());
    const queues = startQueuePollers(
      functions.filter((f): f is QueueFunction => f.kind === 'queue'),
      hostJsonQueueSettings(),
      log,
      platform.settings,
    );
    cleanups.push(() => queues.stop());

    const serviceUrls = Object.fromEntries(services.map((s) => [s.name, serviceUrl(s.name, cfg)])) as Record<ServiceName, string>;
    if (options.banner) {
      const lines = [
        '',
        `Report platform dev host on ${serviceUrl('identity', cfg).replace(/\/identity$/, '')}`,
        ...services.map((s) => `  ${s.name.padEnd(13)} ${serviceUrls[s.name]}`),
        '',
        `  settings     ${settingsFile}${created ? ' (created with fresh dev secrets)' : ''}`,
        `  data         ${cfg.DATA_DIR}`,
        `  SQL          ${cfg.SQL_SERVER ? `Azure SQL ${cfg.SQL_SERVER}/${cfg.SQL_DATABASE}` : `SQLite ${sqliteFile(cfg)}`}`,
        // The platform's data is in the host's account unless PLATFORM_STORAGE names another (shared/storage-account.ts, dataStorage).
        `  storage      ${storage.description}${dataStorageConnection(cfg) === 'PLATFORM_STORAGE' ? "; the platform's data in the account of PLATFORM_STORAGE" : ''}`,
        `  telemetry    ${cfg.APPLICATIONINSIGHTS_CONNECTION_STRING ? 'Application Insights (APPLICATIONINSIGHTS_CONNECTION_STRING)' : 'off (set APPLICATIONINSIGHTS_CONNECTION_STRING)'}`,
        ...services.flatMap((s) => s.describe(platform)).map((line) => `  ${line}`),
        '',
        'Press Ctrl-C to stop.',
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    }

    return { url: `http://${cfg.HOST}:${port}`, serviceUrls, dataDir: cfg.DATA_DIR, azurite, platform, stop };
  }
}

/**
 * `AzureWebJobs.<function name>.Disabled` set to true (or 1) turns a function off, as in Azure: its
 * trigger never fires and its route is not served. Tests use it to keep a timer out of their way.
 */
function functionDisabled(name: string, settings: Readonly<Record<string, string | undefined>>): boolean {
  return ['true', '1'].includes((settings[`AzureWebJobs.${name}.Disabled`] ?? '').trim().toLowerCase());
}
