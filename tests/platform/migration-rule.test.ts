/**
 * Migrations the running code survives (issue 52): expand, then contract. The history of
 * functions/migrations.ts, read as the T-SQL each step runs on Azure SQL (what sql/ holds), has no
 * destructive step (DROP TABLE/VIEW/COLUMN, a rename, ALTER COLUMN, TRUNCATE) without its marker;
 * the check itself refuses each kind unmarked, and a marker that is wrong.
 */
import type { Migration } from 'kysely';
import { MIGRATIONS } from '../../functions/migrations';
import { checkMigrationHistory, destructiveSteps, type ContractStep } from '../../scripts/migration-rule';
import { sql, type AnyKysely } from '../../shared/sql/dialect';

test('the migration history has no destructive step without its marker', async () => {
  expect(await checkMigrationHistory(MIGRATIONS)).toEqual([]);
});

const step = (up: (db: AnyKysely) => Promise<unknown>, contract?: ContractStep): Migration =>
  ({ up: async (db: AnyKysely) => void (await up(db)), ...(contract ? { contract } : {}) }) as Migration;

const EXPAND: Record<string, Migration> = {
  '001_things': step((db) =>
    db.schema
      .createTable('things')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('label', 'varchar(200)')
      .addColumn('old_note', 'varchar(200)')
      .execute(),
  ),
  '002_things_index': step(async (db) => {
    await db.schema.alterTable('things').addColumn('note', 'varchar(400)').execute();
    await db.schema.createIndex('ix_things_label').on('things').column('label').execute();
    // Dropping an index changes no answer the running code reads: not a destructive step.
    await db.schema.dropIndex('ix_things_label').on('things').execute();
  }),
};

const history = (contract: Migration) => ({ ...EXPAND, '003_contract': contract });
const problems = async (migrations: Record<string, Migration>) => (await checkMigrationHistory(migrations)).map((v) => `${v.migration}: ${v.problem}`);

test('adding tables, columns and indexes (and dropping an index) needs no marker', async () => {
  expect(await checkMigrationHistory(EXPAND)).toEqual([]);
});

test.each([
  ['drop column', (db: AnyKysely) => db.schema.alterTable('things').dropColumn('old_note').execute(), 'drop column things.old_note'],
  ['drop table', (db: AnyKysely) => db.schema.dropTable('things').execute(), 'drop table things'],
  ['rename column', (db: AnyKysely) => db.schema.alterTable('things').renameColumn('label', 'title').execute(), 'rename things.label'],
  ['rename table', (db: AnyKysely) => db.schema.alterTable('things').renameTo('items').execute(), 'rename things'],
  ['sp_rename', (db: AnyKysely) => sql`exec sp_rename 'things.label', 'title', 'COLUMN'`.execute(db), 'rename things.label'],
  [
    'alter column (narrowing)',
    (db: AnyKysely) =>
      db.schema
        .alterTable('things')
        .alterColumn('label', (c) => c.setDataType('varchar(20)'))
        .execute(),
    'alter column things.label',
  ],
  ['truncate', (db: AnyKysely) => sql`truncate table "things"`.execute(db), 'truncate things'],
])('%s without a marker is refused, naming the migration, the step and the statement', async (_, up, named) => {
  const found = await problems(history(step(up)));
  expect(found).toHaveLength(1);
  expect(found[0]).toMatch(new RegExp(`^003_contract: ${named} without a contract marker \\(expand, then contract`));
});

test('with a marker naming the object and an earlier migration, the step is accepted', async () => {
  const dropNote = (db: AnyKysely) => db.schema.alterTable('things').dropColumn('old_note').execute();
  expect(await problems(history(step(dropNote, { after: '002_things_index', removes: ['things.old_note'], why: 'note replaced old_note in 002' })))).toEqual(
    [],
  );
});

test('a marker that is wrong is refused: another object, a later or unknown release, a stale entry, no why', async () => {
  const dropNote = (db: AnyKysely) => db.schema.alterTable('things').dropColumn('old_note').execute();
  expect(await problems(history(step(dropNote, { after: '002_things_index', removes: ['things.label'], why: 'x' })))).toEqual([
    "003_contract: drop column things.old_note is not in its contract marker's removes (things.label)",
    '003_contract: its contract marker lists things.label, which it does not remove (a stale marker)',
  ]);
  expect(await problems(history(step(dropNote, { after: '003_contract', removes: ['things.old_note'], why: 'x' })))).toEqual([
    "003_contract: its contract marker's after (003_contract) must name an earlier migration of the history, the release after which nothing reads what it removes",
  ]);
  expect(await problems(history(step(dropNote, { after: '009_later', removes: ['things.old_note'], why: 'x' })))).toHaveLength(1);
  expect(await problems(history(step(dropNote, { after: '001_things', removes: ['things.old_note'], why: ' ' })))).toEqual([
    '003_contract: its contract marker says no why',
  ]);
});

test('reads the statements as Azure SQL gets them', () => {
  expect(destructiveSteps('ALTER TABLE [dbo].[users] DROP COLUMN [legacy], COLUMN_X;').map((s) => [s.kind, s.object])).toEqual([
    ['drop column', 'users.legacy'],
  ]);
  expect(destructiveSteps('drop table if exists "old_things"').map((s) => s.object)).toEqual(['old_things']);
  expect(destructiveSteps('alter table "users" add "plan_request_at" datetime2')).toEqual([]);
  expect(destructiveSteps('drop index "ix_a" on "payment_payments"')).toEqual([]);
});
