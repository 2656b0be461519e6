/**
 * npm run func:prepare [-- --port 7071]      everything `func start` needs, then `func start`
 * npm run func:prepare -- --stop              stops what it started in the background (Azurite, the local Stripe server)
 *
 * Core Tools runs what is built (it does not compile TypeScript), reads local.settings.json into
 * the environment and expects the storage account of AzureWebJobsStorage to answer. So, after the
 * build this script runs (npm runs `build` first):
 * - local.settings.json: created from local.settings.sample.json with fresh dev secrets when
 *   missing; otherwise completed (FUNCTIONS_WORKER_RUNTIME=node, development storage when storage
 *   is empty, PUBLIC_URL, any empty secret), never overwriting a value that is set;
 * - Azurite: with `UseDevelopmentStorage=true`, started in the background on the well-known ports
 *   10000-10002 with the project's pinned version and flags, data under <DATA_DIR>/azurite,
 *   unless an Azurite already answers there;
 * - the local Stripe API server (payment's offline mode: no real STRIPE_SECRET_KEY), started in the
 *   background with the payment webhook of func start's address registered, unless one runs already.
 * Running it again changes nothing that is in place. The embedded SQLite database needs nothing:
 * it migrates itself on first use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
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
    throw new Error(
      `UseDevelopmentStorage=true needs Azurite on ports ${WELL_KNOWN_PORTS.join(', ')}, but ${ports.detail}. Stop what holds them and run npm run func:prepare again.`,
    );
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

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const pidFileOf = (dataDir: string) => path.join(dataDir, 'stripe-emulator.pid');
const readPid = (file: string) => (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) : undefined);

/**
 * The local Stripe server this script started, when it still runs and its address file is still
 * its own (`npm start` in the same folder runs one of its own and takes the address file over).
 */
function runningLocalStripe(dataDir: string): { url: string; pid: number } | undefined {
  const pid = readPid(pidFileOf(dataDir));
  const file = path.join(dataDir, 'stripe-emulator.json');
  if (!pid || !isRunning(pid) || !fs.existsSync(file)) return undefined;
  const address = JSON.parse(fs.readFileSync(file, 'utf8')) as { url: string; pid: number };
  return address.pid === pid ? address : undefined;
}

/**
 * The local Stripe API server payment's offline mode needs, started in the background (`npm run
 * stripe:local` detached) unless ours runs already. It answers exit code 2 when payment is not
 * offline (a real STRIPE_SECRET_KEY or STRIPE_API_BASE), and is then not needed.
 */
export async function ensureLocalStripe(dataDir: string): Promise<string> {
  const running = runningLocalStripe(dataDir);
  if (running) return `local Stripe server: already running (pid ${running.pid}) at ${running.url}, left as is`;
  stopLocalStripe(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(dataDir, 'stripe-emulator.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'tools', 'stripe-emulator', 'cli.js')], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.unref();
  fs.writeFileSync(pidFileOf(dataDir), `${child.pid}\n`);
  for (let waited = 0; waited < 15_000; waited += 50) {
    if (child.exitCode === 2) return 'local Stripe server: not needed (a real STRIPE_SECRET_KEY or STRIPE_API_BASE is set)';
    if (child.exitCode !== null) throw new Error(`the local Stripe server exited with ${child.exitCode}; see ${logFile}`);
    const started = runningLocalStripe(dataDir);
    if (started) return `local Stripe server: started in the background (pid ${started.pid}) at ${started.url}, payment webhook registered; log ${logFile}`;
    await sleep(50);
  }
  child.kill();
  throw new Error(`the local Stripe server did not start within 15 s; see ${logFile}`);
}

function stopLocalStripe(dataDir: string): string {
  const pid = readPid(pidFileOf(dataDir));
  fs.rmSync(pidFileOf(dataDir), { force: true });
  if (!pid || !isRunning(pid)) return 'local Stripe server: none running here';
  process.kill(pid, 'SIGTERM');
  return `local Stripe server: stopped (pid ${pid})`;
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: { port: { type: 'string', default: '7071' }, stop: { type: 'boolean', default: false }, 'stop-azurite': { type: 'boolean', default: false } },
  });
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port: expected a port number, got "${args.port}"`);
  const settingsFile = path.resolve('local.settings.json');
  const dataDirOf = (values: Record<string, string>) => path.resolve(process.env.DATA_DIR || values.DATA_DIR || '.data');
  if (args.stop || args['stop-azurite']) {
    const values = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as LocalSettings).Values : {};
    const dataDir = dataDirOf(values);
    process.stdout.write(`${stopBackgroundAzurite(dataDir)}\n${args.stop ? `${stopLocalStripe(dataDir)}\n` : ''}`);
    return;
  }
  const steps = ['build: dist/ is up to date (npm run build)'];
  const { values, steps: settingsSteps } = await prepareLocalSettings(settingsFile, port);
  steps.push(...settingsSteps);
  const storage = process.env.AzureWebJobsStorage || values.AzureWebJobsStorage;
  if (isDevelopmentStorage(storage)) steps.push(await ensureAzurite(dataDirOf(values)));
  else steps.push('Azurite: not needed (AzureWebJobsStorage names another storage account)');
  if ((values.SERVICES || 'payment').includes('payment')) steps.push(await ensureLocalStripe(dataDirOf(values)));
  steps.push(
    `SQL: ${values.SQL_SERVER ? `Azure SQL ${values.SQL_SERVER} (apply migrations with npm run migrate)` : `SQLite under ${dataDirOf(values)}, migrated on first use`}`,
  );
  process.stdout.write(
    `${steps.map((s) => `  ${s}`).join('\n')}\n\nReady: run  func start${port === 7071 ? '' : ` --port ${port}`}  (the services are then under http://localhost:${port}/<service>)\n`,
  );
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`func:prepare failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
