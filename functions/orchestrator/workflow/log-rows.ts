import type { Kysely } from 'kysely';
import type { LogRow, OrchestratorTables } from '../db/tables';
import { isMssql } from '../../../shared/sql/dialect';
import { countLogRows } from '../rollups/write';

/**
 * Inserts log rows with as few statements as each dialect's parameter limit allows, and counts
 * them into the dashboards' rollups. Call it inside a transaction, so rows and rollups commit
 * together. A row without a timestamp gets the writer's time `now` (its rollup hour must be known).
 */
export async function insertLogRows(database: Kysely<OrchestratorTables>, rows: LogRow[], now: Date): Promise<void> {
  const stamped = rows.map((row) => (row.timestamp ? row : { ...row, timestamp: now.toISOString() }));
  // Azure SQL allows 2,100 parameters per statement (13 columns a row); SQLite 32,766.
  const chunk = isMssql(database) ? 150 : 2000;
  for (let i = 0; i < stamped.length; i += chunk)
    await database
      .insertInto('orchestrator_processing_log')
      .values(stamped.slice(i, i + chunk))
      .execute();
  await countLogRows(database, stamped);
}
