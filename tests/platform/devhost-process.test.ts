import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/host';
import { waitFor } from '../helpers/wait';
import { api } from '../helpers/api';

/** `npm start` as a user runs it: a separate process, in a fresh directory, with no settings file. */
function startCli(dir: string): { child: ChildProcess; output: () => string; banner: Promise<Record<string, string>> } {
  let output = '';
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'devhost', 'cli.js')], {
    cwd: dir,
    // npm start's out-of-the-box run: SQLite even when the suites run against SQL Server.
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'error', AzureWebJobsStorage: '', SQL_SERVER: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const banner = new Promise<Record<string, string>>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl-C to stop.')) {
        const urls = Object.fromEntries([...output.matchAll(/^ {2}(identity|payment|orchestrator|visual)\s+(http\S+)$/gm)].map((m) => [m[1], m[2]]));
        resolve(urls);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`dev host exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, banner };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devhost-cli-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('npm start serves the four services on Azurite and SQLite, and Ctrl-C leaves no Azurite behind', async () => {
  const { child, output, banner } = startCli(dir);
  const urls = await banner;
  expect(Object.keys(urls).sort()).toEqual(['identity', 'orchestrator', 'payment', 'visual']);
  expect(output()).toMatch(/created with fresh dev secrets/);
  expect(fs.existsSync(path.join(dir, 'local.settings.json'))).toBe(true);

  for (const service of ['identity', 'payment', 'orchestrator']) {
    const { status, body } = await api(`${urls[service]}/health`);
    expect(status).toBe(200);
    expect(body.dependencies.sql.detail).toBe('SQLite');
    if (service === 'orchestrator') expect(body.dependencies.storage.detail).toBe('devstoreaccount1/reports');
    if (service === 'payment') expect(body.dependencies.tableStorage).toMatchObject({ ok: true });
  }
  const visual = await fetch(`${urls.visual}/`);
  expect(visual.status).toBe(200);
  expect(visual.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(fs.existsSync(path.join(dir, '.data', 'platform.sqlite'))).toBe(true);

  const azuritePid = Number(/Azurite \(pid (\d+)\)/.exec(output())![1]);
  expect(alive(azuritePid)).toBe(true);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(alive(azuritePid)).toBe(false);
});

test('even when the dev host is killed outright, its Azurite exits', async () => {
  const { child, output, banner } = startCli(dir);
  await banner;
  const azuritePid = Number(/Azurite \(pid (\d+)\)/.exec(output())![1]);
  child.kill('SIGKILL');
  await waitFor(async () => !alive(azuritePid), 15_000, 'Azurite to exit after its parent died');
});
