import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Parser } from 'node-sql-parser';
import { PROJECT_ROOT } from '../../devhost/host';
import { first, page } from '../../shared/sql/dialect';
import { sqliteKysely } from '../../shared/sql/db';
import { MIGRATIONS } from '../../shared/sql/migrations';
import { migrationsAsTsql, recordingMssql } from '../../shared/sql/tsql';

const parser = new Parser();

/** Splits a script on GO, drops comments, and reads Kysely's "quoted" identifiers as [bracketed] ones for the parser. */
function statements(script: string): string[] {
  return script
    .split(/^GO$/m)
    .map((s) => s.replace(/^--.*$/gm, '').trim())
    .filter((s) => s && !/^SET QUOTED_IDENTIFIER ON;?$/i.test(s))
    .map((s) => s.replace(/"([^"]+)"/g, '[$1]'));
}

const parses = (statement: string) => parser.astify(statement, { database: 'transactsql' });

test('sql/ holds exactly the T-SQL of every migration (run npm run sql:generate after changing one)', async () => {
  const generated = await migrationsAsTsql();
  expect(generated.map((g) => g.name)).toEqual(Object.keys(MIGRATIONS));
  for (const { name, sql } of generated) {
    const file = path.join(PROJECT_ROOT, 'sql', `${name}.sql`);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(sql);
  }
});

test('every statement in sql/ parses as T-SQL', () => {
  const files = fs.readdirSync(path.join(PROJECT_ROOT, 'sql')).filter((f) => f.endsWith('.sql'));
  expect(files.length).toBeGreaterThanOrEqual(Object.keys(MIGRATIONS).length);
  for (const file of files) {
    for (const statement of statements(fs.readFileSync(path.join(PROJECT_ROOT, 'sql', file), 'utf8'))) {
      expect(() => parses(statement)).not.toThrow();
    }
  }
});

test('the T-SQL check rejects a broken statement', () => {
  expect(() => parses('create table [t] ([id] int identity primary key, [name] nvarchar(max) default oops(')).toThrow();
  expect(() => parses('alter table [t] add')).toThrow();
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
