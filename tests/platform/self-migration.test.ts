/**
 * The embedded database migrates itself when it opens (shared/sql/db.ts). When it has recorded
 * exactly the history's names (functions/migration-names.ts) it opens without loading the history
 * (a cold start's saving); anything else goes to Kysely's migrator, which applies or refuses.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Migration } from 'kysely';
import { MIGRATION_NAMES } from '../../functions/migration-names';
import { MIGRATIONS } from '../../functions/migrations';
import { SETTINGS } from '../../functions/settings';
import { Platform, runInPlatform } from '../../shared/platform';
import { sql } from '../../shared/sql/dialect';
import { DATABASE, migrateToLatest, pingSqlite, watchSql, type SqlActivity } from '../../shared/sql/db';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
const dataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'self-migration-'));
  dirs.push(dir);
  return dir;
};

/** Opens the database in `dir` as a host would; reports how often the history was loaded and what was applied. */
async function open(dir: string, history: Record<string, Migration> = MIGRATIONS, names: readonly string[] = MIGRATION_NAMES) {
  let loads = 0;
  const platform = new Platform({ DATA_DIR: dir }, undefined, {
    settings: SETTINGS,
    requireFor: [],
    migrations: () => {
      loads++;
      return history;
    },
    migrationNames: names,
  });
  try {
    const result = await runInPlatform(platform, () => migrateToLatest());
    return { loads, applied: (result.results ?? []).map((r) => `${r.migrationName} ${r.status}`) };
  } finally {
    await platform.close();
  }
}

test('the names are the history’s, in its order', () => {
  expect([...MIGRATION_NAMES]).toEqual(Object.keys(MIGRATIONS));
});

test('a new database loads the history and applies it; opened again, it loads nothing', async () => {
  const dir = dataDir();
  expect(await open(dir)).toEqual({ loads: 1, applied: MIGRATION_NAMES.map((name) => `${name} Success`) });
  expect(await open(dir)).toEqual({ loads: 0, applied: [] });
});

test('a step the database has not recorded is applied (the history loads); one it recorded that the history lacks is refused', async () => {
  const dir = dataDir();
  await open(dir);
  const next: Migration = { up: async (db) => void (await sql`create table self_migration_probe (x integer)`.execute(db)) };
  expect(await open(dir, { ...MIGRATIONS, '999_probe': next }, [...MIGRATION_NAMES, '999_probe'])).toEqual({ loads: 1, applied: ['999_probe Success'] });
  expect(await open(dir, { ...MIGRATIONS, '999_probe': next }, [...MIGRATION_NAMES, '999_probe'])).toEqual({ loads: 0, applied: [] });
  // The history without 999_probe, on a database that ran it: Kysely's migrator refuses, as before.
  await expect(open(dir)).rejects.toThrow(/999_probe/);
});

test('the health ping: on an up-to-date database the connection alone answers, told to the watchers; on a new one Kysely applies the history first', async () => {
  const dir = dataDir();
  const platformOn = () => {
    const counted = { loads: 0, activity: [] as SqlActivity[] };
    const platform = new Platform({ DATA_DIR: dir }, undefined, {
      settings: SETTINGS,
      requireFor: [],
      migrations: () => {
        counted.loads++;
        return MIGRATIONS;
      },
      migrationNames: MIGRATION_NAMES,
    });
    watchSql(platform, (a) => counted.activity.push(a));
    return { platform, counted };
  };
  // A new database: the ping goes through Kysely, which applies every migration first.
  const first = platformOn();
  try {
    await pingSqlite(first.platform);
    expect(first.counted.loads).toBe(1);
    expect(first.platform.has(DATABASE)).toBe(true);
    // (The migrator's own statements run on a second handle over the connection, unlogged.)
    expect(first.counted.activity).toEqual([{ kind: 'open' }, { kind: 'query', sql: 'select 1 as ok', failed: false }]);
  } finally {
    await first.platform.close();
  }
  // Up to date: the connection alone, no history loaded, no query builder made.
  const next = platformOn();
  try {
    await pingSqlite(next.platform);
    await pingSqlite(next.platform);
    expect(next.counted).toEqual({
      loads: 0,
      activity: [{ kind: 'open' }, ...Array(2).fill({ kind: 'query', sql: 'select 1 as ok', failed: false })],
    });
    expect(next.platform.has(DATABASE)).toBe(false);
    // Destroying a handle that ran a query closes the file; the next ping opens it again.
    const handle = next.platform.get(DATABASE);
    await sql`select 1`.execute(handle);
    await handle.destroy();
    await pingSqlite(next.platform);
    expect(next.counted.activity.filter((a) => a.kind === 'open')).toHaveLength(2);
  } finally {
    await next.platform.close();
  }
});

test('two processes opening a new database at once: one applies the history, the other waits and finds it applied', async () => {
  // Each round starts both processes' open at the same moment: the switch to WAL and the migration
  // race (before the fix, the WAL switch failed 26 times in 80 such starts, the migration every time).
  const run = promisify(execFile);
  const fixture = path.join(__dirname, 'fixtures', 'migrate-once.js');
  for (let round = 0; round < 5; round++) {
    const dir = dataDir();
    const startAt = String(Date.now() + 400);
    const applied = await Promise.all([run(process.execPath, [fixture, dir, startAt]), run(process.execPath, [fixture, dir, startAt])]);
    expect(applied.map((r) => Number(r.stdout)).sort((a, b) => a - b)).toEqual([0, MIGRATION_NAMES.length]);
  }
});
