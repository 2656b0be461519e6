/**
 * Expand, then contract: migrations the running code survives (docs/deploy.md, "Migrations and the
 * running code"). A deployment migrates first and then replaces the code, and instances of the
 * previous release keep serving meanwhile (and after a failed deploy, or a rollback): so a release's
 * migration only adds (tables, nullable or defaulted columns, indexes), and a step that removes or
 * changes what the previous release reads (DROP TABLE, DROP COLUMN, a rename, ALTER COLUMN)
 * waits one release and is marked: its migration module exports `contract`, naming each object it
 * removes and the earlier migration (an earlier release) after which no code reads it.
 *
 * The check reads the T-SQL each migration runs on Azure SQL (the recorder `npm run sql:generate`
 * writes sql/ with, so it is what sql/ holds) and refuses every destructive statement its
 * migration's marker does not cover. tests/platform/migration-rule.test.ts runs it over the history.
 */
import type { Migration } from 'kysely';
import { inlineParameters, recordingMssql } from '../shared/sql/tsql';

/** The marker a contracting migration exports as `contract`. */
export interface ContractStep {
  /** The earlier migration (released before this one) after which no running code reads what this removes. */
  after: string;
  /** What it removes or changes: `table` or `table.column`, as the statements name them. */
  removes: string[];
  /** One line: why it is safe now. */
  why: string;
}

export interface DestructiveStep {
  kind: 'drop table' | 'drop view' | 'drop column' | 'rename' | 'alter column' | 'truncate';
  /** `table` or `table.column`. */
  object: string;
  statement: string;
}

const PART = String.raw`(?:"[^"]+"|\[[^\]]+\]|\w+)`;
/** A name, quoted or not, with its schema or not (`"dbo"."users"`, `[dbo].[users]`, `users`). */
const NAME = String.raw`(?:${PART}\.)*${PART}`;
/** The object's own name: the last part, unquoted. */
const bare = (name: string) => (name.match(new RegExp(PART, 'g')) ?? [name]).at(-1)!.replace(/^["[]|["\]]$/g, '');

/** The statements of `sql` that remove or change what running code may read. */
export function destructiveSteps(sql: string): DestructiveStep[] {
  const statement = sql.trim().replace(/\s+/g, ' ');
  const steps: DestructiveStep[] = [];
  const add = (kind: DestructiveStep['kind'], object: string) => steps.push({ kind, object, statement });
  let m: RegExpExecArray | null;
  if ((m = new RegExp(String.raw`^drop table (?:if exists )?(${NAME})`, 'i').exec(statement))) add('drop table', bare(m[1]));
  else if ((m = new RegExp(String.raw`^drop view (?:if exists )?(${NAME})`, 'i').exec(statement))) add('drop view', bare(m[1]));
  else if ((m = new RegExp(String.raw`^truncate table (${NAME})`, 'i').exec(statement))) add('truncate', bare(m[1]));
  else if ((m = new RegExp(String.raw`^alter table (${NAME}) (.*)$`, 'i').exec(statement))) {
    const table = bare(m[1]);
    const rest = m[2];
    for (const column of rest.matchAll(new RegExp(String.raw`drop column (?:if exists )?(${NAME})`, 'gi'))) add('drop column', `${table}.${bare(column[1])}`);
    for (const column of rest.matchAll(new RegExp(String.raw`alter column (${NAME})`, 'gi'))) add('alter column', `${table}.${bare(column[1])}`);
    const renamed = new RegExp(String.raw`rename (?:column )?(${NAME})? ?to`, 'i').exec(rest);
    if (renamed) add('rename', renamed[1] ? `${table}.${bare(renamed[1])}` : table);
  }
  // sp_rename 'table.column', 'new', 'COLUMN' (or a table), in raw SQL.
  for (const rename of statement.matchAll(/sp_rename\s+N?'([^']+)'/gi)) add('rename', rename[1].replace(/^dbo\./i, '').replace(/[[\]"]/g, ''));
  return steps;
}

export interface RuleViolation {
  migration: string;
  problem: string;
}

const contractOf = (migration: Migration): ContractStep | undefined => (migration as Migration & { contract?: ContractStep }).contract;

/** Every destructive step of the history that its migration's `contract` marker does not cover, and every marker that is wrong. */
export async function checkMigrationHistory(migrations: Record<string, Migration>): Promise<RuleViolation[]> {
  const names = Object.keys(migrations);
  const violations: RuleViolation[] = [];
  for (const [index, name] of names.entries()) {
    const { db, statements } = recordingMssql();
    await migrations[name].up(db);
    const steps = statements.flatMap((s) => destructiveSteps(inlineParameters(s)));
    const contract = contractOf(migrations[name]);
    for (const step of steps) {
      if (!contract)
        violations.push({
          migration: name,
          problem: `${step.kind} ${step.object} without a contract marker (expand, then contract: it waits one release; export contract = { after, removes, why }): ${step.statement}`,
        });
      else if (!contract.removes.includes(step.object))
        violations.push({ migration: name, problem: `${step.kind} ${step.object} is not in its contract marker's removes (${contract.removes.join(', ')})` });
    }
    if (contract) {
      const after = names.indexOf(contract.after);
      if (after < 0 || after >= index)
        violations.push({
          migration: name,
          problem: `its contract marker's after (${contract.after}) must name an earlier migration of the history, the release after which nothing reads what it removes`,
        });
      for (const object of contract.removes)
        if (!steps.some((step) => step.object === object))
          violations.push({ migration: name, problem: `its contract marker lists ${object}, which it does not remove (a stale marker)` });
      if (!contract.why?.trim()) violations.push({ migration: name, problem: 'its contract marker says no why' });
    }
  }
  return violations;
}
