/**
 * npm run rollups:rebuild
 *
 * Fills the dashboards' rollups again from the raw executions and processing-log rows of the
 * configured database (Azure SQL when SQL_SERVER is set, otherwise SQLite under DATA_DIR), in one
 * transaction. The rollups are kept with every write, so this is for after rows were changed
 * behind the application's back: a restore, a bulk load, a manual fix.
 */
import { SETTINGS } from '../../functions/settings';
import { useProcessSettings } from '../../shared/config';
import { closeDb, db, migrateToLatest } from '../../shared/sql/db';
import { MIGRATIONS } from '../../functions/migrations';
import { rebuildRollups } from '../../functions/orchestrator/rollups/rebuild';

async function main(): Promise<void> {
  const cfg = useProcessSettings(process.env, { settings: SETTINGS, requireFor: [], migrations: () => MIGRATIONS });
  const target = cfg.SQL_SERVER ? `Azure SQL ${cfg.SQL_SERVER}/${cfg.SQL_DATABASE}` : `SQLite under ${cfg.DATA_DIR}`;
  await migrateToLatest();
  const started = performance.now();
  await rebuildRollups(db());
  process.stdout.write(`rebuilt the rollups of ${target} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

main()
  .catch((error) => {
    process.stderr.write(`rollups:rebuild failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  })
  .finally(() => closeDb());
