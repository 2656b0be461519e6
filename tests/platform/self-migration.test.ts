/**
 * The embedded database migrates itself when it opens (shared/sql/db.ts). When it has recorded
 * exactly the history's names (functions/migration-names.ts) it opens without loading the history
 * (a cold start's saving); anything else goes to Kysely's migrator, which applies or refuses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

test('the health ping answers on the connection alone: no migration, told to the watchers; the query builder opened later shares the connection', async () => {
  const dir = dataDir();
  let loads = 0;
  const platform = new Platform({ DATA_DIR: dir }, undefined, {
    settings: SETTINGS,
    requireFor: [],
    migrations: () => {
      loads++;
      return MIGRATIONS;
    },
    migrationNames: MIGRATION_NAMES,
  });
  const activity: SqlActivity[] = [];
  watchSql(platform, (a) => activity.push(a));
  try {
    pingSqlite(platform);
    expect(activity).toEqual([{ kind: 'open' }, { kind: 'query', sql: 'select 1 as ok', failed: false }]);
    expect(loads).toBe(0);
    // Kysely's first query migrates over the same connection: no second open.
    const applied = await runInPlatform(platform, () => migrateToLatest());
    expect(applied.results).toHaveLength(MIGRATION_NAMES.length);
    expect(activity.filter((a) => a.kind === 'open')).toHaveLength(1);
    // Destroying the handle closes the file; the next ping opens it again.
    await platform.get(DATABASE).destroy();
    pingSqlite(platform);
    expect(activity.filter((a) => a.kind === 'open')).toHaveLength(2);
  } finally {
    await platform.close();
  }
});
