import type { Expression, RawBuilder } from 'kysely';
import type { LogRollupDimension } from './tables';
import { sql, type AnyKysely, first, isoPrefix } from '../../../shared/sql/dialect';

/**
 * The orchestrator's dashboard rollups as SQL: how their rows are keyed and how they are filled from
 * the raw rows. The migration that creates them fills them, `npm run rollups:rebuild` fills them
 * again, and the orchestrator keeps them as rows change with the same keys (functions/orchestrator/
 * rollups), so every path gives the same key for the same row. Here, not in the orchestrator's
 * folder, because every app that migrates the embedded database runs the fill, and an app that
 * serves only identity or payment must not load the orchestrator's code.
 */

/**
 * Executions of the diagnostics page's enhanced test (`diag-<uuid>`) are real executions, listed
 * like any other, but never counted: not in the rollups, so not in the health score, the success
 * rate, the alerts, the trends or the failure analysis.
 */
export const DIAGNOSTIC_PREFIX = 'diag-';
export const isDiagnostic = (trackingId: string | null | undefined) => !!trackingId?.startsWith(DIAGNOSTIC_PREFIX);
/** SQL: the row's tracking id is not a diagnostic execution's (LIKE with a constant prefix; `-` is no wildcard). */
export const notDiagnostic = (column = 'tracking_id') => sql<boolean>`${sql.ref(column)} not like ${sql.lit(`${DIAGNOSTIC_PREFIX}%`)}`;

/** The hour of a timestamp column in SQL: its ISO 8601 prefix `2026-11-22T04`. */
export const hourOfColumn = (db: AnyKysely, column: string) => isoPrefix(db, column, 13);

/**
 * The hour of a timestamp value as the database will store it: the prefix of the ISO text
 * (SQLite keeps the text as written; Azure SQL converts it to datetime2 and back to the same prefix).
 */
export const hourOf = (value: string | Date) => (typeof value === 'string' ? value : value.toISOString()).slice(0, 13);

/** A failed step's key: its number (empty when null), a colon, then `-` for no name or `=` and the name. */
export function stepKeyOfColumns(): RawBuilder<string> {
  return sql<string>`concat(${sql.ref('step_number')}, ':', case when ${sql.ref('step_name')} is null then '-' else concat('=', ${sql.ref('step_name')}) end)`;
}

export const stepKey = (stepNumber: number | null | undefined, stepName: string | null | undefined) =>
  `${stepNumber ?? ''}:${stepName === null || stepName === undefined ? '-' : `=${stepName}`}`;

export const ROLLUP_TABLES = ['orchestrator_execution_rollup', 'orchestrator_log_rollup', 'orchestrator_company_rollup'] as const;

/** Fills the empty rollup tables from the raw rows, one grouped INSERT ... SELECT each. */
export async function fillRollups(db: AnyKysely): Promise<void> {
  await fillCountRollups(db);
  await fillCompanyRollup(db);
}

/** The rollups of what the dashboards count (executions per hour and status, log rows per hour and dimension), when empty. */
export async function fillCountRollups(db: AnyKysely): Promise<void> {
  const hourCreated = hourOfColumn(db, 'created_at');
  await db
    .insertInto('orchestrator_execution_rollup')
    .columns(['hour', 'processing_status', 'executions', 'duration_count', 'duration_sum'])
    .expression(
      db
        .selectFrom('orchestrator_executions')
        .select([
          hourCreated.as('hour'),
          'processing_status',
          sql<number>`count(*)`.as('executions'),
          sql<number>`count(duration_ms)`.as('duration_count'),
          sql<number>`coalesce(sum(cast(duration_ms as bigint)), 0)`.as('duration_sum'),
        ])
        .where(notDiagnostic())
        .groupBy([hourCreated, 'processing_status']),
    )
    .execute();

  await fillLogDimension(db, 'error_pattern', sql.ref('error_pattern'), [], sql`${sql.ref('error_pattern')} is not null`);
  await fillLogDimension(db, 'error_source', sql.ref('error_source'), [], sql`${sql.ref('error_source')} is not null`);
  // A failed step is counted where the failure was classified: not again on the steps it passed through, nor on a cancellation.
  await fillLogDimension(
    db,
    'failed_step',
    stepKeyOfColumns(),
    ['step_number', 'step_name'],
    sql`${sql.ref('status')} = 'failed' and ${sql.ref('error_pattern')} is not null`,
  );
}

/** The company rollup (count, last submission and latest execution per company), when empty. */
async function fillCompanyRollup(db: AnyKysely): Promise<void> {
  await db
    .insertInto('orchestrator_company_rollup')
    .columns(['company_name', 'execution_count', 'last_submission_at', 'latest_tracking_id', 'latest_industry_id', 'latest_status'])
    .expression(
      db
        .selectFrom('orchestrator_executions as e')
        .select((eb) => [
          'e.company_name',
          sql<number>`count(*)`.as('execution_count'),
          sql`max(e.created_at)`.as('last_submission_at'),
          first(
            db,
            eb
              .selectFrom('orchestrator_executions as x')
              .select('x.tracking_id')
              .whereRef('x.company_name', '=', 'e.company_name')
              .orderBy('x.created_at', 'desc')
              .orderBy('x.tracking_id', 'desc'),
            1,
          )
            .$asScalar()
            .as('latest_tracking_id'),
          // Placeholders the next statement replaces with the latest execution's own.
          sql.lit('').as('latest_industry_id'),
          sql.lit('processing').as('latest_status'),
        ])
        .groupBy('e.company_name'),
    )
    .execute();
  // The latest execution's industry and status, by its key.
  const latest = (column: 'industry_id' | 'processing_status') =>
    db.selectFrom('orchestrator_executions as l').select(`l.${column}`).whereRef('l.tracking_id', '=', 'orchestrator_company_rollup.latest_tracking_id');
  await db
    .updateTable('orchestrator_company_rollup')
    .set({ latest_industry_id: latest('industry_id'), latest_status: latest('processing_status') })
    .execute();
}

/** Log rows matching `where`, per hour and `name` (grouped by `name` itself, or by the step columns it is made of). */
async function fillLogDimension(db: AnyKysely, dimension: LogRollupDimension, name: Expression<string>, stepColumns: string[], where: Expression<boolean>) {
  const hour = hourOfColumn(db, 'timestamp');
  const step = (column: string) => (stepColumns.includes(column) ? sql.ref(column) : sql`null`).as(column);
  await db
    .insertInto('orchestrator_log_rollup')
    .columns(['dimension', 'hour', 'name', 'step_number', 'step_name', 'occurrences', 'latest'])
    .expression(
      db
        .selectFrom('orchestrator_processing_log')
        .select([
          sql.lit(dimension).as('dimension'),
          hour.as('hour'),
          sql`${name}`.as('name'),
          step('step_number'),
          step('step_name'),
          sql<number>`count(*)`.as('occurrences'),
          sql`max(${sql.ref('timestamp')})`.as('latest'),
        ])
        .where(where)
        .where(notDiagnostic())
        .groupBy([hour, ...(stepColumns.length ? stepColumns.map((c) => sql.ref(c)) : [name])]),
    )
    .execute();
}
