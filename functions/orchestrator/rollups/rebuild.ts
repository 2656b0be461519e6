import type { AnyKysely } from '../../../shared/sql/dialect';
import { ROLLUP_TABLES, fillRollups } from '../db/rollups';

/**
 * Empties the rollups and fills them again from the raw rows, in one transaction, so readers see
 * the old rollups or the new ones (npm run rollups:rebuild; after restoring raw rows from a backup
 * or loading them in bulk). Writers that count into the rollups meanwhile wait for it on SQLite;
 * on Azure SQL the serializable transaction holds them off the tables it reads.
 */
export async function rebuildRollups(db: AnyKysely): Promise<void> {
  await db
    .transaction()
    .setIsolationLevel('serializable')
    .execute(async (trx) => {
      for (const table of ROLLUP_TABLES) await trx.deleteFrom(table).execute();
      await fillRollups(trx);
    });
}
