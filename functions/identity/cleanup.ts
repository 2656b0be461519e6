import { config } from '../../shared/config';
import type { TimerFunction } from '../../shared/functions';
import { createLogger } from '../../shared/logging';
import { identityDb } from './db/tables';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Hourly: forget expired codes and rate-limit windows, dead refresh tokens, and audit entries past retention. */
export async function purgeExpired(): Promise<Record<string, number>> {
  const cfg = config();
  const database = identityDb();
  const nowIso = new Date().toISOString();
  const otp = await database.deleteFrom('identity_otp_codes').where('expires_at', '<', nowIso).executeTakeFirst();
  const limits = await database.deleteFrom('identity_rate_limits').where('expires_at', '<', nowIso).executeTakeFirst();
  const tokens = await database.deleteFrom('identity_refresh_tokens').where('expires_at', '<', nowIso).executeTakeFirst();
  const auditCutoff = new Date(Date.now() - cfg.AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
  const auditRows = await database.deleteFrom('identity_audit_log').where('timestamp', '<', auditCutoff).executeTakeFirst();
  return {
    otpCodes: Number(otp.numDeletedRows),
    rateLimits: Number(limits.numDeletedRows),
    refreshTokens: Number(tokens.numDeletedRows),
    auditEntries: Number(auditRows.numDeletedRows),
  };
}

/**
 * Runs once a day per app (the host holds a lease, so scaled-out instances do not repeat it), at
 * 03:17 UTC. Not hourly: each run wakes a paused serverless database, which then stays online for
 * its auto-pause delay (60 minutes), so an hourly run would keep it awake for ever. Expired codes,
 * sessions and rate-limit windows are refused on read whatever their age; this only frees space.
 */
export const cleanupFunction: TimerFunction = {
  kind: 'timer',
  name: 'identity-cleanup',
  schedule: '0 17 3 * * *',
  handler: async () => {
    const deleted = await purgeExpired();
    createLogger({ service: 'identity', function: 'identity-cleanup' }).info('purged expired identity rows', deleted);
  },
};
