/**
 * npm run func:prepare [-- --port 7071]      everything `func start` needs, then `func start`
 * npm run func:prepare -- --stop-azurite      stops the Azurite it started
 *
 * Core Tools runs what is built (it does not compile TypeScript), reads local.settings.json into
 * the environment and expects the storage account of AzureWebJobsStorage to answer. So, after the
 * build this script runs (npm runs `build` first):
 * - local.settings.json: created from local.settings.sample.json with fresh dev secrets when
 *   missing; otherwise completed (FUNCTIONS_WORKER_RUNTIME=node, development storage when storage
 *   is empty, PUBLIC_URL, any empty secret), never overwriting a value that is set;
 * - Azurite: with `UseDevelopmentStorage=true`, started in the background on the well-known ports
 *   10000-10002 with the project's pinned version and flags, data under <DATA_DIR>/azurite,
 *   unless an Azurite already answers there.
 * Running it again changes nothing that is in place. The embedded SQLite database needs nothing:
 * it migrates itself on first use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isDevelopmentStorage, probeStoragePorts, startBackgroundAzurite, WELL_KNOWN_PORTS } from '../devhost/azurite';
import { PROJECT_ROOT } from '../devhost/paths';
import { generateDevSecrets, type LocalSettings } from '../devhost/settings';

export interface PrepareResult {
  settingsFile: string;
  /** What was done, one line each (the script prints them). */
  steps: string[];
}

/** Creates or completes local.settings.json for Core Tools. Returns the settings and what changed. */
export async function prepareLocalSettings(settingsFile: string, port: number): Promise<{ values: Record<string, string>; steps: string[] }> {
  const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8')) as LocalSettings;
  const exists = fs.existsSync(settingsFile);
  const current: LocalSettings = exists ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : { ...sample, Values: {} };
  const values: Record<string, string> = { ...current.Values };
  const steps: string[] = [];
  const set = (name: string, value: string, why: string) => {
    values[name] = value;
    if (exists) steps.push(`local.settings.json: ${name} ${why}`);
  };
  for (const [name, value] of Object.entries(sample.Values)) if (!(name in values)) set(name, value, 'added from the sample');
  if (values.FUNCTIONS_WORKER_RUNTIME !== 'node') set('FUNCTIONS_WORKER_RUNTIME', 'node', 'set to node (Core Tools starts the Node worker only then)');
  if (!values.AzureWebJobsStorage) set('AzureWebJobsStorage', 'UseDevelopmentStorage=true', 'set to UseDevelopmentStorage=true (Azurite on 10000-10002)');
  if (!values.PUBLIC_URL) set('PUBLIC_URL', `http://localhost:${port}`, `set to http://localhost:${port} (func start's address)`);
  const empty = Object.keys(values).filter((name) => values[name] === '');
  const completed = await generateDevSecrets(values);
  for (const name of empty) if (completed[name]) set(name, completed[name], 'generated (dev secret)');
  const changed = !exists || JSON.stringify(values) !== JSON.stringify(current.Values);
  if (changed) {
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, JSON.stringify({ ...current, IsEncrypted: false, Values: values }, null, 2) + '\n', { mode: 0o600 });
  }
  if (!exists) steps.unshift(`local.settings.json: created from local.settings.sample.json with fresh dev secrets (${settingsFile})`);
  else if (!changed) steps.push('local.settings.json: already complete, unchanged');
  return { values, steps };
}

/** Azurite on the well-known ports, started in the background unless one answers there already. */
export async function ensureAzurite(dataDir: string): Promise<string> {
  const ports = await probeStoragePorts(WELL_KNOWN_PORTS);
  if (ports.state === 'azurite') return `Azurite: already running on ${WELL_KNOWN_PORTS.join(', ')} (${ports.versions[0]}), left as is`;
  if (ports.state === 'taken') {
    throw new Error(`UseDevelopmentStorage=true needs Azurite on ports ${WELL_KNOWN_PORTS.join(', ')}, but ${ports.detail}. Stop what holds them and run npm run func:prepare again.`);
  }
  const location = path.join(dataDir, 'azurite');
  const { pid, logFile } = await startBackgroundAzurite(location);
  return `Azurite: started in the background (pid ${pid}) on ${WELL_KNOWN_PORTS.join(', ')}, data in ${location}, log ${logFile}; stop it with npm run func:prepare -- --stop-azurite`;
}

export function stopBackgroundAzurite(dataDir: string): string {
  const pidFile = path.join(dataDir, 'azurite', 'azurite.pid');
  if (!fs.existsSync(pidFile)) return 'Azurite: no background Azurite was started here';
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  fs.rmSync(pidFile, { force: true });
  try {
    process.kill(pid, 'SIGTERM');
    return `Azurite: stopped (pid ${pid})`;
  } catch {
    return `Azurite: pid ${pid} was not running`;
  }
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({ options: { port: { type: 'string', default: '7071' }, 'stop-azurite': { type: 'boolean', default: false } } });
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port: expected a port number, got "${args.port}"`);
  const settingsFile = path.resolve('local.settings.json');
  const dataDirOf = (values: Record<string, string>) => path.resolve(process.env.DATA_DIR || values.DATA_DIR || '.data');
  if (args['stop-azurite']) {
    const values = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as LocalSettings).Values : {};
    process.stdout.write(`${stopBackgroundAzurite(dataDirOf(values))}\n`);
    return;
  }
  const steps = ['build: dist/ is up to date (npm run build)'];
  const { values, steps: settingsSteps } = await prepareLocalSettings(settingsFile, port);
  steps.push(...settingsSteps);
  const storage = process.env.AzureWebJobsStorage || values.AzureWebJobsStorage;
  if (isDevelopmentStorage(storage)) steps.push(await ensureAzurite(dataDirOf(values)));
  else steps.push('Azurite: not needed (AzureWebJobsStorage names another storage account)');
  steps.push(`SQL: ${values.SQL_SERVER ? `Azure SQL ${values.SQL_SERVER} (apply migrations with npm run migrate)` : `SQLite under ${dataDirOf(values)}, migrated on first use`}`);
  process.stdout.write(`${steps.map((s) => `  ${s}`).join('\n')}\n\nReady: run  func start${port === 7071 ? '' : ` --port ${port}`}  (the services are then under http://localhost:${port}/<service>)\n`);
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`func:prepare failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
