import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { functionsOf, selectServices } from '../functions/registry';
import { resetAccessTokenKeys } from '../shared/auth/access-token';
import { config, reloadConfig, serviceUrl, type ServiceName } from '../shared/config';
import type { FunctionDefinition, HttpFunction, QueueFunction, TimerFunction } from '../shared/functions';
import { createLogger } from '../shared/logging';
import { closeDb, migrateToLatest, sqliteFile } from '../shared/sql/db';
import { resetStorageClients } from '../shared/storage';
import { startAzurite, type AzuriteHandle } from './azurite';
import { buildRouteTable, createHttpServer } from './http-server';
import { startQueuePollers, type QueueSettings } from './queues';
import { loadLocalSettings } from './settings';
import { startTimers } from './timers';
import { startLocalStripe } from '../tools/stripe-emulator/local';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

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
}

export interface DevHost {
  url: string;
  serviceUrls: Record<ServiceName, string>;
  dataDir: string;
  azurite?: AzuriteHandle;
  stop(): Promise<void>;
}

/** host.json TimeSpan "hh:mm:ss" to milliseconds. */
function timespanMs(value: string | undefined, fallback: number): number {
  const m = value ? /^(\d+):(\d+):(\d+)$/.exec(value) : null;
  return m ? ((+m[1] * 60 + +m[2]) * 60 + +m[3]) * 1000 : fallback;
}

function queueSettings(): QueueSettings {
  const hostJson = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'host.json'), 'utf8'));
  const q = hostJson.extensions?.queues ?? {};
  return {
    batchSize: q.batchSize ?? 16,
    maxDequeueCount: q.maxDequeueCount ?? 5,
    visibilityTimeoutSeconds: timespanMs(q.visibilityTimeout, 0) / 1000,
    maxPollingIntervalMs: timespanMs(q.maxPollingInterval, 60_000),
  };
}

/**
 * Serves the function registry the way the Functions host would: settings from
 * local.settings.json, Azurite when no storage account is configured, migrations, then HTTP,
 * timer and queue triggers. Stops cleanly and leaves no child process behind.
 */
export async function startDevHost(options: DevHostOptions = {}): Promise<DevHost> {
  const log = createLogger({ component: 'devhost' });
  const settingsFile = options.settingsFile ?? path.resolve('local.settings.json');
  const { values, created } = await loadLocalSettings(settingsFile, path.join(PROJECT_ROOT, 'local.settings.sample.json'));

  const previousEnv = { ...process.env };
  // As with `func`, variables already in the environment win over the file; explicit overrides win over both.
  for (const [key, value] of Object.entries(values)) if (process.env[key] === undefined) process.env[key] = value;
  Object.assign(process.env, options.env ?? {});
  process.env.DATA_DIR = path.resolve(process.env.DATA_DIR || '.data');

  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => log.error('shutdown step failed', { error }));
    cleanups.length = 0;
    resetStorageClients();
    resetAccessTokenKeys();
    for (const key of Object.keys(process.env)) if (!(key in previousEnv)) delete process.env[key];
    Object.assign(process.env, previousEnv);
  };


  try {
    let cfg = reloadConfig();
    const services = selectServices(cfg.SERVICES);
    const functions = [...functionsOf(services), ...(options.functions ?? [])];
    // Refuse reserved routes before starting anything, as the Functions host does.
    const routeTable = buildRouteTable(functions.filter((f): f is HttpFunction => f.kind === 'http'));

    let azurite: AzuriteHandle | undefined;
    if (!cfg.AzureWebJobsStorage && !cfg.AzureWebJobsStorage__accountName) {
      azurite = await startAzurite({ location: options.persistStorage ? path.join(cfg.DATA_DIR, 'azurite') : undefined, host: '127.0.0.1' });
      cleanups.push(() => azurite!.stop());
      process.env.AzureWebJobsStorage = azurite.connectionString;
      cfg = reloadConfig();
    }

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
    process.env.PORT = String(port);
    cfg = reloadConfig();

    cleanups.push(() => closeDb());
    await migrateToLatest();
    // Offline mode's local Stripe API server, with this host's payment webhook registered (tooling, not deployed).
    if (services.some((s) => s.name === 'payment')) {
      const localStripe = await startLocalStripe();
      if (localStripe) cleanups.push(() => localStripe.stop());
    }
    for (const service of services) {
      await service.start?.();
      if (service.stop) cleanups.push(service.stop);
    }

    const timers = startTimers(functions.filter((f): f is TimerFunction => f.kind === 'timer'), log);
    cleanups.push(() => timers.stop());
    const queues = startQueuePollers(functions.filter((f): f is QueueFunction => f.kind === 'queue'), queueSettings(), log);
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
        `  storage      ${azurite ? `Azurite (pid ${azurite.pid})${options.persistStorage ? ` data in ${path.join(cfg.DATA_DIR, 'azurite')}` : ', in memory'}` : 'configured storage account'}`,
        ...services.flatMap((s) => s.describe?.() ?? []).map((line) => `  ${line}`),
        '',
        'Press Ctrl-C to stop.',
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    }

    return { url: `http://${cfg.HOST}:${port}`, serviceUrls, dataDir: config().DATA_DIR, azurite, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
