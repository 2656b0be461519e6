/**
 * Azure runs the path the tests run. The Azure Functions entry point, loaded as the Node worker
 * loads it (a fresh process: entry-scope-worker.ts), registers every function of
 * functions/function-index.json, and each one, invoked once through what it registered (HTTP
 * functions with a request to their route, timers with a timer, the queue trigger with a message),
 * builds its own service's context from the app's platform, inside that platform's scope: the scope
 * `inPlatform` (shared/functions.ts) opens around every function, the wrapper the dev host uses too.
 * Outside an invocation there is no platform: code reached there fails instead of building one.
 *
 * An HTTP function may answer anything (a guarded route answers 401: its context is built before
 * the guard); a timer or the queue run may fail on what it reaches, but within the worker's deadline.
 */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startAzurite, type AzuriteHandle } from '../../devhost/azurite';
import { PROJECT_ROOT } from '../../devhost/paths';
import { generateDevSecrets } from '../../devhost/settings';
import FUNCTION_INDEX from '../../functions/function-index.json';
import type { BuiltContext, Invocation, Outside } from './entry-scope-worker';

jest.setTimeout(600_000);

interface Report {
  registered: string[];
  invocations: Invocation[];
  outside: Outside[];
  builtOutsideInvocations: BuiltContext[];
}

/** Every function of the index, with the service whose function it is. */
const FUNCTIONS = Object.entries(FUNCTION_INDEX as Record<string, { name: string }[]>).flatMap(([service, functions]) =>
  functions.map(({ name }) => ({ service, name })),
);

let dir: string;
let azurite: AzuriteHandle;
let report: Report;
const mark = randomUUID();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entry-scope-'));
  azurite = await startAzurite();
  const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8'));
  const env = {
    PATH: process.env.PATH,
    ...(await generateDevSecrets(sample.Values)),
    SERVICES: 'identity,payment,orchestrator,visual',
    DATA_DIR: path.join(dir, 'data'),
    AzureWebJobsStorage: azurite.connectionString,
    LOG_LEVEL: 'error',
    ENTRY_SCOPE_RUN: mark,
  };
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'entry-scope-worker.js')], {
    env,
    maxBuffer: 64 * 1024 * 1024,
    // Each invocation has its own deadline in the worker; this is for a worker that never reports.
    timeout: 540_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
  report = JSON.parse(line.slice('RESULT '.length));
});

afterAll(async () => {
  await azurite?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the entry point registers every function of the index, and each was invoked once, none left hanging', () => {
  expect([...report.registered].sort()).toEqual(FUNCTIONS.map((f) => f.name).sort());
  expect(report.invocations.map((i) => i.name).sort()).toEqual(FUNCTIONS.map((f) => f.name).sort());
  expect(report.invocations.filter((i) => i.hung).map((i) => i.name)).toEqual([]);
});

test("each invocation builds a context of its own function's service, from the app's platform, in that platform's scope", () => {
  const byName = new Map(report.invocations.map((i) => [i.name, i]));
  const app = report.invocations.flatMap((i) => i.contexts)[0]?.platform;
  // Per function: what it built, in a form whose difference names the function and what is wrong.
  const seen = Object.fromEntries(
    FUNCTIONS.map(({ name }) => {
      const contexts = byName.get(name)?.contexts ?? [];
      return [
        name,
        {
          built: contexts.length > 0,
          services: [...new Set(contexts.map((c) => c.service))],
          inScope: contexts.every((c) => c.inScope),
          platforms: [...new Set(contexts.map((c) => c.platform))],
          fromAppSettings: contexts.every((c) => c.fromAppSettings),
        },
      ];
    }),
  );
  const wanted = Object.fromEntries(
    FUNCTIONS.map(({ service, name }) => [name, { built: true, services: [service], inScope: true, platforms: [app], fromAppSettings: true }]),
  );
  expect(seen).toEqual(wanted);
  // One platform for the whole app, every invocation: the entry point's, built from the app settings.
  expect(app).toBeDefined();
});

test('outside an invocation no platform is in force: currentPlatform() throws, after start-up and between invocations', () => {
  expect(report.outside.length).toBe(FUNCTIONS.length + 1);
  const found = report.outside.filter((o) => o.inForce || !o.error?.startsWith('No platform in force'));
  expect(found).toEqual([]);
  // Nothing builds a context between invocations either (a background task would, outside any scope).
  expect(report.builtOutsideInvocations).toEqual([]);
});
