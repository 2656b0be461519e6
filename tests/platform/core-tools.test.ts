/**
 * The Core Tools loop as a user runs it: `npm run func:prepare`, then `func start`. Core Tools
 * cannot be installed here, so `func start` is devhost/core-tools/cli: Core Tools' environment
 * (local.settings.json Values, WEBSITE_HOSTNAME=localhost:<port>, FUNCTIONS_WORKER_RUNTIME=node,
 * UseDevelopmentStorage=true against Azurite on 10000-10002, no build) and the Node worker's API,
 * so the entry point registers with `app.*` for real and every invocation goes through the
 * library's own conversions. Then a sign-in, a payment and a report, over HTTP.
 *
 * Every test needing the well-known ports lives in this one file, so nothing else competes for them.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, probeStoragePorts, WELL_KNOWN_PORTS } from '../../devhost/azurite';
import { PROJECT_ROOT } from '../../devhost/paths';
import { runJourney, type Step } from '../../scripts/journey';
import { startHostProcess } from '../e2e/process';
import { api } from '../helpers/api';

jest.setTimeout(180_000);

const run = promisify(execFile);
const dist = (...parts: string[]) => path.join(PROJECT_ROOT, 'dist', ...parts);
/** The environment of a user's shell: nothing of ours, so settings come from local.settings.json. */
const shellEnv = () => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn' };
  return env;
};

let dir: string;
let funcStart: ChildProcess | undefined;

beforeAll(async () => {
  const ports = await probeStoragePorts(WELL_KNOWN_PORTS);
  if (ports.state !== 'free') {
    throw new Error(
      `This test runs Azurite on the well-known ports ${WELL_KNOWN_PORTS.join(', ')} (UseDevelopmentStorage=true), as func start expects, ` +
        `but they are in use (${ports.state === 'azurite' ? `an Azurite already runs there: ${ports.versions.join(', ')}` : ports.detail}). Stop what holds them and run the test again.`,
    );
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-tools-'));
});

// Whatever happens in a test, neither func start nor the background Azurite outlives it.
afterEach(async () => {
  if (funcStart && funcStart.exitCode === null && funcStart.signalCode === null) {
    funcStart.kill('SIGKILL');
    await new Promise((r) => funcStart!.once('exit', r));
  }
  const pidFile = path.join(dir, '.data', 'azurite', 'azurite.pid');
  if (fs.existsSync(pidFile)) {
    try {
      process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // already gone
    }
    fs.rmSync(pidFile);
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `func start --port <port>`: resolves with the origin it serves once the worker has started. */
function startFuncStart(port: number): Promise<{ origin: string; functions: number; output: () => string }> {
  let output = '';
  funcStart = spawn(process.execPath, [dist('devhost', 'core-tools', 'cli.js'), '--port', String(port)], {
    cwd: dir,
    env: shellEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    funcStart!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^\{"ready":.*\}$/m.exec(output);
      if (ready) {
        const { ready: origin, functions } = JSON.parse(ready[0]);
        resolve({ origin, functions, output: () => output });
      }
    });
    funcStart!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    funcStart!.once('exit', (code) => reject(new Error(`func start exited with ${code}:\n${output}`)));
  });
}

test('npm run func:prepare, then func start: sign in, pay for pro, get the report; prepare is idempotent and npm start shares the Azurite', async () => {
  const port = await freePort();

  // 1. npm run func:prepare (the build has run: npm test builds first).
  const first = await run(process.execPath, [dist('scripts', 'func-prepare.js'), '--port', String(port)], { cwd: dir, env: shellEnv() });
  expect(first.stdout).toContain('local.settings.json: created from local.settings.sample.json with fresh dev secrets');
  expect(first.stdout).toMatch(/Azurite: started in the background \(pid \d+\) on 10000, 10001, 10002/);
  expect(first.stdout).toContain(`func start --port ${port}`);
  const settings = JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values;
  expect(settings).toMatchObject({
    FUNCTIONS_WORKER_RUNTIME: 'node',
    AzureWebJobsStorage: 'UseDevelopmentStorage=true',
    PUBLIC_URL: `http://localhost:${port}`,
  });
  for (const secret of ['JWT_SIGNING_KEYS', 'SERVICE_TOKEN_SECRET', 'OTP_HMAC_KEY', 'AUTH_ADMIN_TOKEN', 'STRIPE_WEBHOOK_SECRET', 'VISUAL_API_TOKEN'])
    expect(settings[secret]).not.toBe('');
  expect(fs.statSync(path.join(dir, 'local.settings.json')).mode & 0o777).toBe(0o600);
  expect((await probeStoragePorts(WELL_KNOWN_PORTS)).state).toBe('azurite');

  // Again: nothing changes, the running Azurite is kept.
  const second = await run(process.execPath, [dist('scripts', 'func-prepare.js'), '--port', String(port)], { cwd: dir, env: shellEnv() });
  expect(second.stdout).toContain('local.settings.json: already complete, unchanged');
  expect(second.stdout).toContain('Azurite: already running on 10000, 10001, 10002 (Azurite-Blob/3.35.0), left as is');
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values).toEqual(settings);

  // 2. func start: the entry point registers every function of the four services with app.*.
  const host = await startFuncStart(port);
  expect(host.origin).toBe(`http://localhost:${port}`);
  const index = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'functions', 'function-index.json'), 'utf8'));
  expect(host.functions).toBe(Object.values(index).flat().length);
  expect(host.output()).toContain(`identity-login: [POST,OPTIONS] http://localhost:${port}/identity/auth/login`);

  // 3. The journey: sign in (code from the outbox), pay on the local Stripe (offline, as WEBSITE_HOSTNAME is
  // localhost), payment syncs the plan into identity over http://localhost, the queue-triggered report runs on
  // Azurite's queue and calls the visual service, the PDF downloads through its SAS link from Azurite's blobs.
  const steps: Step[] = [];
  const journey = await runJourney({
    baseUrl: host.origin,
    dataDir: path.join(dir, '.data'),
    email: 'core-tools@example.com',
    company: 'Harbour Lights Ltd',
    onStep: (s) => steps.push(s),
  }).catch((error: Error) => {
    // What the host wrote says why a step failed (a queue message that threw, a function that never answered).
    throw new Error(`${error.message}\n--- func start output ---\n${host.output().slice(-6000)}`);
  });
  expect(journey.user.user).toMatchObject({ email: 'core-tools@example.com', plan: 'free' });
  expect(journey.confirmed.status).toBe('succeeded');
  expect(journey.validated).toMatchObject({ valid: true, user: { plan: 'pro', status: 'active' } });
  expect(journey.userStatus).toMatchObject({ plan: 'pro', sync: { state: 'synced' } });
  expect(journey.report).toMatchObject({ status: 'completed', progress_percentage: 100, plan: 'pro', visuals: { status: 'included' } });
  expect(journey.pdf.subarray(0, 5).toString()).toBe('%PDF-');
  expect(journey.audit.entries).toEqual([expect.objectContaining({ action: 'user.plan.update', actor: { type: 'service', id: 'payment-service' } })]);
  expect(steps.every((s) => s.status !== 'failed')).toBe(true);

  // The embedded database migrated itself under func start (no migration step was run).
  expect(fs.existsSync(path.join(dir, '.data', 'platform.sqlite'))).toBe(true);

  // 4. Ctrl-C: appTerminate runs (the services stop) and the process exits cleanly.
  funcStart!.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => funcStart!.once('exit', resolve));
  expect(code).toBe(0);

  // 5. npm start in the same folder finds the Azurite func:prepare started, and sees the same data.
  // (PUBLIC_URL emptied: local.settings.json names func start's address, and npm start takes a free port here.)
  const devhost = await startHostProcess(dir, { AzureWebJobsStorage: 'UseDevelopmentStorage=true', PUBLIC_URL: '' });
  try {
    expect(devhost.output()).toContain('Azurite already running on 10000, 10001, 10002');
    const status = await api(`${devhost.urls.orchestrator}/api/reports/${journey.order.trackingId}`, { token: journey.refreshed.accessToken });
    expect(status).toMatchObject({ status: 200, body: { status: 'completed' } });
  } finally {
    await devhost.stop();
  }

  // 6. npm run func:prepare -- --stop stops the background Azurite and local Stripe server.
  const stopped = await run(process.execPath, [dist('scripts', 'func-prepare.js'), '--stop'], { cwd: dir, env: shellEnv() });
  expect(stopped.stdout).toMatch(/Azurite: stopped \(pid \d+\)/);
  expect(stopped.stdout).toMatch(/local Stripe server: stopped \(pid \d+\)/);
  await expect(waitForFree()).resolves.toBe(true);
});

async function waitForFree(): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if ((await probeStoragePorts(WELL_KNOWN_PORTS)).state === 'free') return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

test('func start refuses to start without a storage connection, or with development storage and no Azurite, as Core Tools does', async () => {
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'core-tools-bare-'));
  try {
    const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8'));
    fs.writeFileSync(path.join(bare, 'local.settings.json'), JSON.stringify({ ...sample, Values: { ...sample.Values, AzureWebJobsStorage: '' } }));
    await expect(run(process.execPath, [dist('devhost', 'core-tools', 'cli.js'), '--port', '0'], { cwd: bare, env: shellEnv() })).rejects.toMatchObject({
      stderr: expect.stringContaining('Missing value for AzureWebJobsStorage'),
    });
    fs.writeFileSync(path.join(bare, 'local.settings.json'), JSON.stringify(sample));
    await expect(run(process.execPath, [dist('devhost', 'core-tools', 'cli.js'), '--port', '0'], { cwd: bare, env: shellEnv() })).rejects.toMatchObject({
      stderr: expect.stringContaining('Azurite does not answer on 10000, 10001, 10002'),
    });
  } finally {
    fs.rmSync(bare, { recursive: true, force: true });
  }
});
