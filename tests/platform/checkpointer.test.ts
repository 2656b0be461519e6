/**
 * The SQLite checkpointer thread (shared/sql/checkpointer.ts) copies the write-ahead log back into
 * the database file, and starts a little after its connection: when the database is gone by then
 * (a test's temporary directory removed) it ends quietly, creating nothing, instead of failing the
 * process that started it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';

const CHECKPOINTER = path.join(__dirname, '../../shared/sql/checkpointer.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkpointer-'));
  dirs.push(dir);
  return dir;
};

/** Starts the thread on `file`; resolves with its exit code, or the error it failed with. */
function start(file: string, intervalMs: number) {
  const worker = new Worker(CHECKPOINTER, { workerData: { file, intervalMs } });
  const ended = new Promise<{ code?: number; error?: Error }>((resolve) => {
    worker.once('error', (error) => resolve({ error }));
    worker.once('exit', (code) => resolve({ code }));
  });
  return { worker, ended };
}

test('copies the write-ahead log into the database file', async () => {
  const file = path.join(tempDir(), 'db.sqlite');
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('wal_autocheckpoint = 0'); // only the thread checkpoints
  database.exec('create table t (x text)');
  const insert = database.prepare('insert into t values (?)');
  for (let i = 0; i < 200; i++) insert.run('x'.repeat(500));
  const before = fs.statSync(file).size;
  const { worker } = start(file, 20);
  try {
    const deadline = Date.now() + 10_000;
    while (fs.statSync(file).size <= before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 100 * 500);
  } finally {
    await worker.terminate();
    database.close();
  }
});

test('ends quietly, creating nothing, when its database is gone', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'gone', 'db.sqlite');
  expect(await start(file, 20).ended).toEqual({ code: 0 });
  expect(fs.existsSync(path.dirname(file))).toBe(false);

  const present = path.join(dir, 'removed.sqlite');
  fs.writeFileSync(present, '');
  fs.rmSync(present);
  expect(await start(present, 20).ended).toEqual({ code: 0 });
  expect(fs.existsSync(present)).toBe(false);
});
