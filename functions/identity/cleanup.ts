import type { IdentityContext } from './context';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Daily: forget expired codes and rate-limit windows, dead refresh tokens, and audit entries past retention. */
export async function purgeExpired(ctx: Pick<IdentityContext, 'config' | 'db' | 'now'>): Promise<Record<string, number>> {
  const cfg = ctx.config;
  const database = ctx.db;
  const nowIso = ctx.now().toISOString();
  const otp = await database.deleteFrom('identity_otp_codes').where('expires_at', '<', nowIso).executeTakeFirst();
  const limits = await database.deleteFrom('identity_rate_limits').where('expires_at', '<', nowIso).executeTakeFirst();
  const tokens = await database.deleteFrom('identity_refresh_tokens').where('expires_at', '<', nowIso).executeTakeFirst();
  const auditCutoff = new Date(ctx.now().getTime() - cfg.AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
  const auditRows = await database.deleteFrom('identity_audit_log').where('timestamp', '<', auditCutoff).executeTakeFirst();
  return {
    otpCodes: Number(otp.numDeletedRows),
    rateLimits: Number(limits.numDeletedRows),
    refreshTokens: Number(tokens.numDeletedRows),
    auditEntries: Number(auditRows.numDeletedRows),
  };
}
