/**
 * `npm run payments:replay [-- --apply]`: lists payments whose plan sync the retry loop owes
 * (pending, failed) and, with --apply, pushes each user's newest plan now. Payments in manual
 * review are counted, never replayed: an operator approves or rejects each (docs/payment.md).
 * Needs identity reachable at {auth_url} (the dev host running, or IDENTITY_URL).
 */
import { serviceUrl } from '../../shared/config';
import { createLogger } from '../../shared/logging';
import { closeDb, migrateToLatest } from '../../shared/sql/db';
import { paymentContext } from '../../functions/payment/context';
import { MANUAL_REVIEW_NOT_REPLAYED, replayUnsynced } from '../../functions/payment/replay';
import { currentPlatform } from '../../shared/platform';
import { loadLocalEnv } from './local-env';

async function main() {
  loadLocalEnv(['payment']);
  await migrateToLatest();
  const apply = process.argv.includes('--apply');
  // The command's payment context: what the console's replay route is handed, on this process's platform.
  const ctx = paymentContext(currentPlatform(), createLogger({ command: 'payments:replay' }));
  const { unsynced, manualReview, results } = await replayUnsynced(ctx, { apply });
  if (manualReview) process.stdout.write(`${manualReview} payment(s) in manual review, not replayed: ${MANUAL_REVIEW_NOT_REPLAYED}\n`);
  if (!unsynced.length) {
    process.stdout.write(manualReview ? 'No failed or pending plan sync to replay.\n' : 'Every payment is synced with identity.\n');
    return;
  }
  process.stdout.write(`${unsynced.length} payment(s) not synced with identity (${serviceUrl('identity', ctx.config)}):\n`);
  for (const p of unsynced) {
    process.stdout.write(
      `  ${p.id}  user ${p.userId}  ${p.status} -> plan ${p.sync.plan}  sync ${p.sync.state}, ${p.sync.attempts} attempt(s)${p.sync.error ? `, last error: ${p.sync.error}` : ''}\n`,
    );
  }
  if (!apply) {
    process.stdout.write('Run again with --apply to replay them.\n');
    return;
  }
  for (const r of results) {
    process.stdout.write(
      r.success
        ? `  synced   user ${r.userId}${r.plan ? ` -> ${r.plan}` : ' (already up to date)'}\n`
        : `  FAILED   user ${r.userId}: ${r.error} (${r.details})\n`,
    );
  }
  if (results.some((r) => !r.success)) process.exitCode = 1;
}

main()
  .catch((error) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(() => closeDb());
