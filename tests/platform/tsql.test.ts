import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PROJECT_ROOT } from '../../devhost/host';
import { first, page } from '../../shared/sql/dialect';
import { sqliteKysely } from '../../shared/sql/db';
import { MIGRATIONS } from '../../functions/migrations';
import { migrationsAsTsql, recordingMssql } from '../../shared/sql/tsql';
import { describeWithTsql } from '../helpers/tsql';

const SQL_DIR = path.join(PROJECT_ROOT, 'sql');

/** Every T-SQL script under sql/ (the *.sqlite.sql files are SQLite's). */
function tsqlScripts(dir = SQL_DIR): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsqlScripts(full);
    return entry.name.endsWith('.sql') && !entry.name.endsWith('.sqlite.sql') ? [full] : [];
  });
}

test('sql/ holds exactly the T-SQL of every migration (run npm run sql:generate after changing one)', async () => {
  const generated = await migrationsAsTsql(MIGRATIONS);
  expect(generated.map((g) => g.name)).toEqual(Object.keys(MIGRATIONS));
  for (const { name, sql } of generated) {
    const file = path.join(PROJECT_ROOT, 'sql', `${name}.sql`);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(sql);
  }
});

describeWithTsql("Microsoft's T-SQL parser (ScriptDom, SQL Server 2022)", (tsql) => {
  test('parses every script in sql/, GO batches and all, without an error', async () => {
    const scripts = tsqlScripts();
    expect(scripts.map((file) => path.relative(SQL_DIR, file))).toEqual(
      expect.arrayContaining([...Object.keys(MIGRATIONS).map((name) => `${name}.sql`), path.join('upgrade', 'legacy-processing-log.sql')]),
    );
    for (const file of scripts) {
      const script = fs.readFileSync(file, 'utf8');
      const parsed = await tsql().parse(script);
      expect({ file, errors: parsed.errors }).toEqual({ file, errors: [] });
      // Every batch holds at least one statement: nothing was read as an empty or swallowed batch.
      expect(parsed.batches).toBe(script.split(/^GO$/m).filter((batch) => batch.replace(/^--.*$/gm, '').trim()).length);
      expect(parsed.statements.length).toBeGreaterThanOrEqual(parsed.batches);
    }
  });

  test('rejects broken statements and what SQL Server does not have (LIMIT), naming the line', async () => {
    const broken = await tsql().parse('create table [t] ([id] int identity primary key, [name] nvarchar(max) default oops(');
    expect(broken.errors.length).toBeGreaterThan(0);
    expect((await tsql().parse('alter table [t] add')).errors.length).toBeGreaterThan(0);
    const limit = await tsql().parse('select "id"\nfrom "users" limit 5');
    expect(limit.errors).toEqual([expect.objectContaining({ line: 2, message: expect.stringContaining('limit') })]);
    // Kysely's "quoted" identifiers are identifiers (QUOTED_IDENTIFIER ON), and parameters are @1, @2...
    expect(await tsql().parse('select top(@1) "id" from "users" order by "id" offset @2 rows fetch next @3 rows only')).toEqual({
      errors: [],
      batches: 1,
      statements: ['SelectStatement'],
    });
  });
});

test('paging compiles to OFFSET/FETCH and TOP for Azure SQL and to LIMIT for SQLite', async () => {
  const { db } = recordingMssql();
  const ordered = db.selectFrom('users').selectAll().orderBy('created_at', 'desc');
  const paged = page(db, ordered, 20, 40).compile();
  expect(paged.sql).toMatch(/offset @\d+ rows fetch next @\d+ rows only/);
  expect(paged.sql).not.toMatch(/limit/i);
  expect(first(db, ordered, 5).compile().sql).toMatch(/^select top\(5\)/);

  const sqlite = sqliteKysely<any>(new Database(':memory:'));
  const sqliteOrdered = sqlite.selectFrom('users').selectAll().orderBy('created_at', 'desc');
  expect(page(sqlite, sqliteOrdered, 20, 40).compile().sql).toMatch(/limit \? offset \?$/);
  // The row count is written into the SQL so SQLite can stop at the first rows in index order.
  const firstFive = first(sqlite, sqliteOrdered, 5).compile();
  expect(firstFive.sql).toMatch(/ limit 5$/);
  expect(firstFive.parameters).toEqual([]);
  for (const bad of [1.5, -1, Number.NaN, 2 ** 60]) expect(() => first(sqlite, sqliteOrdered, bad)).toThrow(RangeError);
  await sqlite.destroy();
});
