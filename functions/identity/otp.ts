import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { IdentityConfig } from './settings';
import type { IdentityContext } from './context';

/** What the one-time codes need: their settings (length, lifetime, cooldown, tries, HMAC key), the clock and the database. */
type CodeContext = Pick<IdentityContext, 'config' | 'now' | 'db'>;

const codeHash = (cfg: IdentityConfig, email: string, code: string) => createHmac('sha256', cfg.OTP_HMAC_KEY).update(`${email}\n${code}`).digest('hex');

/** A uniformly random code of `length` digits (OTP_LENGTH) from the CSPRNG. */
export function generateCode(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, '0');
}

/**
 * Seconds until a new code may be sent to `email`: positive while the previous code is still usable
 * (unused, unexpired, tries left) and younger than the cooldown. A used or burnt code does not hold
 * back a new sign-in.
 */
export async function resendCooldown(ctx: CodeContext, email: string): Promise<number> {
  const cfg = ctx.config;
  const row = await ctx.db.selectFrom('identity_otp_codes').selectAll().where('email', '=', email).executeTakeFirst();
  if (!row || row.used_at || row.attempts >= cfg.OTP_MAX_ATTEMPTS) return 0;
  const now = ctx.now().getTime();
  if (new Date(row.expires_at).getTime() <= now) return 0;
  const readyAt = new Date(row.created_at).getTime() + cfg.OTP_RESEND_COOLDOWN_SECONDS * 1000;
  return Math.max(0, Math.ceil((readyAt - now) / 1000));
}

/**
 * Stores a fresh code for `email`, replacing the previous one, unless another request replaced it
 * within the cooldown (then returns undefined). The replacement is one conditional UPDATE, so two
 * instances racing cannot both send.
 */
export async function issueCode(ctx: CodeContext, email: string): Promise<string | undefined> {
  const cfg = ctx.config;
  const code = generateCode(cfg.OTP_LENGTH);
  const now = ctx.now();
  const nowIso = now.toISOString();
  const values = {
    code_hash: codeHash(cfg, email, code),
    attempts: 0,
    created_at: nowIso,
    expires_at: new Date(now.getTime() + cfg.OTP_TTL_SECONDS * 1000).toISOString(),
    used_at: null,
  };
  const cooldownStart = new Date(now.getTime() - cfg.OTP_RESEND_COOLDOWN_SECONDS * 1000).toISOString();
  const database = ctx.db;
  const replaced = await database
    .updateTable('identity_otp_codes')
    .set(values)
    .where('email', '=', email)
    .where((eb) =>
      eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', nowIso), eb('attempts', '>=', cfg.OTP_MAX_ATTEMPTS), eb('created_at', '<=', cooldownStart)]),
    )
    .executeTakeFirst();
  if (Number(replaced.numUpdatedRows) === 1) return code;
  try {
    await database
      .insertInto('identity_otp_codes')
      .values({ email, ...values })
      .execute();
    return code;
  } catch {
    return undefined; // a live code exists (or another instance just inserted one): cooldown
  }
}

/**
 * Takes back a code that could not be mailed (the e-mail service throttled): the row goes only if
 * it still holds this unused code, so the next request is not held back by the cooldown of a code
 * nobody received, and a code that never left cannot be used.
 */
export async function withdrawCode(ctx: CodeContext, email: string, code: string): Promise<void> {
  await ctx.db
    .deleteFrom('identity_otp_codes')
    .where('email', '=', email)
    .where('code_hash', '=', codeHash(ctx.config, email, code))
    .where('used_at', 'is', null)
    .execute();
}

export type CodeCheck = 'valid' | 'wrong' | 'expired' | 'used' | 'exhausted' | 'none';

/**
 * Checks a code. Every try first takes one attempt atomically (`attempts < max` in the UPDATE), so
 * parallel guesses on many instances cannot exceed OTP_MAX_ATTEMPTS; a match is then consumed with
 * `used_at IS NULL` in the WHERE, so a code signs in at most once. Hashes compare in constant time.
 */
export async function consumeCode(ctx: CodeContext, email: string, code: string): Promise<CodeCheck> {
  const cfg = ctx.config;
  const database = ctx.db;
  const nowIso = ctx.now().toISOString();
  const attempt = await database
    .updateTable('identity_otp_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .where('attempts', '<', cfg.OTP_MAX_ATTEMPTS)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  const row = await database.selectFrom('identity_otp_codes').selectAll().where('email', '=', email).executeTakeFirst();
  if (!row) return 'none';
  if (Number(attempt.numUpdatedRows) === 0) {
    if (row.used_at) return 'used';
    if (row.attempts >= cfg.OTP_MAX_ATTEMPTS) return 'exhausted';
    return 'expired';
  }
  const given = Buffer.from(codeHash(cfg, email, code), 'hex');
  const stored = Buffer.from(row.code_hash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) return 'wrong';
  const consumed = await database
    .updateTable('identity_otp_codes')
    .set({ used_at: nowIso })
    .where('email', '=', email)
    .where('code_hash', '=', row.code_hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(consumed.numUpdatedRows) === 1 ? 'valid' : 'used';
}
