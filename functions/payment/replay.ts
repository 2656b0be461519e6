import type { Logger } from '../../shared/logging';
import { syncUser, type SyncResult } from './plan-sync';
import { markSyncWork } from './backlog';
import { reopenForReplay, unsyncedPayments, type Payment } from './payments';
import { currentTime } from '../../shared/platform';

/**
 * The replay command's work: list every payment that still owes identity a plan (pending, failed,
 * manual review); with `apply`, put them back in the loop and push each user's newest plan now.
 */
export async function replayUnsynced(log: Logger, options: { apply: boolean; now?: Date }): Promise<{ unsynced: Payment[]; results: SyncResult[] }> {
  const unsynced = await unsyncedPayments(1000);
  if (!options.apply) return { unsynced, results: [] };
  await markSyncWork(log);
  await reopenForReplay(
    unsynced.map((p) => p.id),
    options.now ?? currentTime(),
  );
  const results: SyncResult[] = [];
  for (const userId of new Set(unsynced.map((p) => p.userId))) results.push(await syncUser(userId, log));
  return { unsynced, results };
}
