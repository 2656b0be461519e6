import { Code, type CodeFor, forbidden, HttpError, serviceUnavailable, tooManyRequests, unauthorized } from '../../shared/http/errors';
import { MailThrottled } from '../../shared/mail/mailer';
import { ANONYMOUS, audit, type RequestMeta } from './audit';
import { ensureBootstrapAdmin } from './bootstrap';
import type { IdentityContext } from './context';
import { consumeCode, issueCode, resendCooldown, withdrawCode, type CodeCheck } from './otp';
import { bucketKey, hitRateLimit, resetRateLimit } from './rate-limit';
import { createSession, revokeSession, revokeUserSessions, rotateRefreshToken, type RotationResult } from './sessions';
import { signAccessToken } from './tokens';
import { findUserByEmail, findUserById, insertUser, toUserView, type UserView } from './users';

export const LOGIN_MESSAGE = 'If this address can sign in, a one-time code is on its way. It is valid for a few minutes.';

/**
 * The per-address allowance is counted per client as well as in total: requests that prove nothing
 * (anyone can ask for a code to any address) spend only their own client's allowance, so a stranger
 * cannot lock the owner out from elsewhere; the larger total ceiling bounds mail bombing.
 */
const emailBuckets = (email: string, ip: string | null) => ({
  perClient: bucketKey('login-email-client', `${email}\n${ip ?? 'unknown'}`),
  total: bucketKey('login-email', email),
});

function codeEmail(ttlSeconds: number, to: string, code: string) {
  const minutes = Math.round(ttlSeconds / 60);
  return {
    to,
    subject: `Your sign-in code: ${code}`,
    text: [
      `Your sign-in code is ${code}`,
      '',
      `It expires in ${minutes} minutes and works once.`,
      'If you did not ask to sign in, ignore this email: nobody can sign in without the code.',
    ].join('\n'),
  };
}

const noAccountEmail = (to: string) => ({
  to,
  subject: 'Sign-in attempt',
  text: ['Someone asked to sign in with this address, but there is no account for it and sign-up is closed.', 'If this was not you, ignore this email.'].join(
    '\n',
  ),
});

/**
 * Starts an email sign-in. Known and unknown addresses take the same path (a code row, the caps and
 * the cooldown, one email), so neither the answer nor its timing tells whether an account exists.
 */
export async function startLogin(ctx: IdentityContext, rawEmail: string, meta: RequestMeta): Promise<void> {
  const cfg = ctx.config;
  const email = rawEmail.trim().toLowerCase();
  const target = { type: 'email', id: email };
  await ensureBootstrapAdmin(ctx);
  const refuse = async (reason: string, error: HttpError) => {
    await audit(ctx, meta, { actor: ANONYMOUS, action: 'auth.login', target, result: 'failure', reason });
    throw error;
  };
  const perIp = await hitRateLimit(ctx, bucketKey('login-ip', meta.ip ?? 'unknown'), cfg.LOGIN_MAX_PER_IP, cfg.LOGIN_RATE_WINDOW_SECONDS);
  if (!perIp.allowed)
    await refuse(
      'rate_limited_ip',
      tooManyRequests('Too many sign-in requests from this network; try again later', perIp.retryAfterSeconds, Code.LOGIN_RATE_LIMITED),
    );
  const cooldown = await resendCooldown(ctx, email);
  if (cooldown > 0)
    await refuse('resend_cooldown', tooManyRequests(`A code was sent moments ago; a new one can be sent in ${cooldown} s`, cooldown, Code.OTP_RESEND_COOLDOWN));
  const buckets = emailBuckets(email, meta.ip);
  const perEmail = await hitRateLimit(ctx, buckets.perClient, cfg.LOGIN_MAX_PER_EMAIL, cfg.LOGIN_RATE_WINDOW_SECONDS);
  if (!perEmail.allowed)
    await refuse(
      'rate_limited_email',
      tooManyRequests('Too many codes were sent to this address; try again later', perEmail.retryAfterSeconds, Code.LOGIN_RATE_LIMITED),
    );
  const total = await hitRateLimit(ctx, buckets.total, cfg.LOGIN_MAX_PER_EMAIL_TOTAL, cfg.LOGIN_RATE_WINDOW_SECONDS);
  if (!total.allowed)
    await refuse(
      'rate_limited_email_total',
      tooManyRequests('Too many codes were sent to this address; try again later', total.retryAfterSeconds, Code.LOGIN_RATE_LIMITED),
    );
  const code = await issueCode(ctx, email);
  if (!code)
    await refuse(
      'resend_cooldown',
      tooManyRequests('A code was sent moments ago; try again shortly', cfg.OTP_RESEND_COOLDOWN_SECONDS, Code.OTP_RESEND_COOLDOWN),
    );
  const user = await findUserByEmail(ctx, email);
  try {
    await ctx.mailer.send(user || cfg.ALLOW_SIGNUP ? codeEmail(cfg.OTP_TTL_SECONDS, email, code!) : noAccountEmail(email));
  } catch (error) {
    if (!(error instanceof MailThrottled)) throw error;
    // Nothing was sent: the code is taken back (no cooldown for a code nobody received), and the
    // caller is told to come back, never that a code is on its way.
    await withdrawCode(ctx, email, code!);
    ctx.log.warn('sign-in code not sent: the e-mail service throttled', { retryAfterSeconds: error.retryAfterSeconds, reason: error.message });
    await refuse(
      'email_throttled',
      serviceUnavailable('The e-mail service is busy; no code was sent. Try again after Retry-After seconds', Code.EMAIL_THROTTLED, error.retryAfterSeconds),
    );
  }
  await audit(ctx, meta, { actor: ANONYMOUS, action: 'auth.login', target, result: 'success', details: { accountExists: Boolean(user) } });
}

const CODE_FAILURES: Record<Exclude<CodeCheck, 'valid'>, [CodeFor<401>, string]> = {
  wrong: [Code.OTP_INVALID, 'The code is not valid'],
  none: [Code.OTP_INVALID, 'The code is not valid'],
  used: [Code.OTP_INVALID, 'The code is not valid'],
  expired: [Code.OTP_EXPIRED, 'The code has expired; request a new one'],
  exhausted: [Code.OTP_ATTEMPTS_EXCEEDED, 'Too many wrong tries for this code; request a new one'],
};

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  user: UserView;
  sessionId: string;
}

/** Completes a sign-in: consumes the code, signs the user up when allowed, opens a session. */
export async function completeLogin(ctx: IdentityContext, rawEmail: string, code: string, meta: RequestMeta): Promise<SignedIn> {
  const cfg = ctx.config;
  const email = rawEmail.trim().toLowerCase();
  const target = { type: 'email', id: email };
  await ensureBootstrapAdmin(ctx);
  const check = await consumeCode(ctx, email, code);
  if (check !== 'valid') {
    await audit(ctx, meta, { actor: ANONYMOUS, action: 'auth.verify', target, result: 'failure', reason: `code_${check}` });
    const [errorCode, message] = CODE_FAILURES[check];
    throw unauthorized(message, errorCode);
  }
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    let user = await findUserByEmail(ctx, email, trx);
    if (!user) {
      if (!cfg.ALLOW_SIGNUP) return { refused: 'no_account' as const };
      user = await insertUser(ctx, { email }, trx);
      await audit(
        ctx,
        meta,
        { actor: { type: 'user', id: user.id }, action: 'user.signup', target: { type: 'user', id: user.id }, result: 'success', details: { email } },
        trx,
      );
    }
    if (user.status !== 'active') return { refused: 'inactive' as const, userId: user.id };
    const session = await createSession(ctx, user.id, meta, trx);
    await audit(
      ctx,
      meta,
      { actor: { type: 'user', id: user.id }, action: 'auth.verify', target: { type: 'session', id: session.sessionId }, result: 'success' },
      trx,
    );
    return { user, ...session };
  });
  if ('refused' in outcome) {
    await audit(ctx, meta, { actor: ANONYMOUS, action: 'auth.verify', target, result: 'failure', reason: outcome.refused });
    if (outcome.refused === 'inactive') throw forbidden('The account is inactive', Code.ACCOUNT_INACTIVE);
    throw unauthorized('The code is not valid', Code.OTP_INVALID);
  }
  // The mailbox owner proved themselves: their client and the address start afresh.
  const buckets = emailBuckets(email, meta.ip);
  await resetRateLimit(ctx, buckets.perClient, cfg.LOGIN_RATE_WINDOW_SECONDS);
  await resetRateLimit(ctx, buckets.total, cfg.LOGIN_RATE_WINDOW_SECONDS);
  const user = await toUserView(ctx, outcome.user);
  const { accessToken, expiresIn } = await signAccessToken(ctx, user, outcome.sessionId);
  return { accessToken, refreshToken: outcome.refreshToken, expiresIn, user, sessionId: outcome.sessionId };
}

const REFRESH_FAILURES: Record<Exclude<RotationResult['outcome'], 'rotated'>, [CodeFor<401>, string]> = {
  unknown: [Code.REFRESH_TOKEN_INVALID, 'The refresh token is not valid'],
  expired: [Code.REFRESH_TOKEN_EXPIRED, 'The refresh token has expired; sign in again'],
  session_revoked: [Code.REFRESH_TOKEN_INVALID, 'The session has ended; sign in again'],
  session_expired: [Code.REFRESH_TOKEN_EXPIRED, 'The session has reached its maximum age; sign in again'],
  reused_in_grace: [Code.REFRESH_TOKEN_ROTATED, 'This refresh token was just rotated; use the newest one'],
  reuse_detected: [Code.REFRESH_TOKEN_REUSED, 'This refresh token was already used; the session has been revoked'],
};

/**
 * Exchanges a refresh token for a new pair (the token rotates; see rotateRefreshToken), with the
 * user's current role, plan and status in the new access token. An inactive user's session ends.
 */
export async function refreshSession(ctx: IdentityContext, refreshToken: string, meta: RequestMeta): Promise<SignedIn> {
  const result = await rotateRefreshToken(ctx, refreshToken);
  if (result.outcome !== 'rotated') {
    const ids = 'sessionId' in result ? result : undefined;
    await audit(ctx, meta, {
      actor: ids ? { type: 'user', id: ids.userId } : ANONYMOUS,
      action: 'auth.refresh',
      target: ids ? { type: 'session', id: ids.sessionId } : undefined,
      result: 'failure',
      reason: result.outcome,
    });
    const [code, message] = REFRESH_FAILURES[result.outcome];
    throw unauthorized(message, code);
  }
  const row = await findUserById(ctx, result.userId);
  if (!row || row.status !== 'active') {
    await revokeSession(ctx, result.sessionId, 'user_inactive');
    await audit(ctx, meta, {
      actor: { type: 'user', id: result.userId },
      action: 'auth.refresh',
      target: { type: 'session', id: result.sessionId },
      result: 'failure',
      reason: 'user_inactive',
    });
    throw unauthorized('The account is inactive', Code.AUTH_USER_INACTIVE);
  }
  const user = await toUserView(ctx, row);
  const { accessToken, expiresIn } = await signAccessToken(ctx, user, result.sessionId);
  await audit(ctx, meta, {
    actor: { type: 'user', id: user.id },
    action: 'auth.refresh',
    target: { type: 'session', id: result.sessionId },
    result: 'success',
    ...(result.replayed ? { details: { repeated: true } } : {}),
  });
  return { accessToken, refreshToken: result.refreshToken, expiresIn, user, sessionId: result.sessionId };
}

/** Ends the caller's session (`current`) or every session of the user (`all`). */
export async function logout(
  ctx: IdentityContext,
  user: UserView,
  sessionId: string,
  scope: 'current' | 'all',
  meta: RequestMeta,
): Promise<{ scope: 'current' | 'all'; revokedSessions: number }> {
  const revokedSessions = scope === 'all' ? await revokeUserSessions(ctx, user.id, 'logout_all') : Number(await revokeSession(ctx, sessionId, 'logout'));
  await audit(ctx, meta, {
    actor: { type: 'user', id: user.id },
    action: 'auth.logout',
    target: scope === 'all' ? { type: 'user', id: user.id } : { type: 'session', id: sessionId },
    result: 'success',
    details: { scope, revoked: revokedSessions },
  });
  return { scope, revokedSessions };
}
