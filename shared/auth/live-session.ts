import { config, serviceUrl } from '../config';
import { currentPlatform, member } from '../platform';
import { Code, HttpError, httpError, isErrorCode, serviceUnavailable, STATUS_NAMES, unauthorized } from '../http/errors';
import { undici } from '../http/undici';
import { PLAN_SOURCES, type Plan, type PlanSource } from '../plan-ids';

export type { Plan };
export type UserStatus = 'active' | 'inactive';

/** The signed-in user as identity knows them now: role, permissions, plan and status are live state, not the token's claims. */
export interface LiveUser {
  id: string;
  email: string;
  role: string;
  permissions: string[];
  plan: Plan;
  /** When the plan's paid period ends (null: no end, or free): the quota counts reports per period. */
  planPeriodEnd: string | null;
  planSource: PlanSource | null;
  status: UserStatus;
  sessionId: string;
}

type Answer = { ok: true; user: LiveUser } | { ok: false; error: HttpError };

const MAX_ENTRIES = 10_000;
// Identity's answers per token, for SESSION_CHECK_CACHE_SECONDS: a service sees an ended session,
// a role removed or a plan changed that late at most. Refusals are kept as long, so a replayed
// dead token costs identity one call per period, not one per request.
// Per platform: its answers by token, and each user's cached tokens, so a change this process made
// to a user is seen at once here.
const LIVE_SESSIONS = member('live sessions', () => ({
  answers: new Map<string, { at: number; answer: Answer }>(),
  tokensOfUser: new Map<string, Set<string>>(),
}));
const cache = () => currentPlatform().get(LIVE_SESSIONS);

/** Forget the answers about one user: this process just changed them (a plan sync), so its next request asks identity again. */
export function forgetLiveUser(userId: string): void {
  const { answers, tokensOfUser } = cache();
  for (const token of tokensOfUser.get(userId) ?? []) answers.delete(token);
  tokensOfUser.delete(userId);
}

function remember(token: string, at: number, answer: Answer): void {
  const { answers, tokensOfUser } = cache();
  if (answers.size >= MAX_ENTRIES) {
    const oldest = answers.keys().next().value!;
    const entry = answers.get(oldest)!;
    if (entry.answer.ok) tokensOfUser.get(entry.answer.user.id)?.delete(oldest);
    answers.delete(oldest);
  }
  answers.delete(token);
  answers.set(token, { at, answer });
  if (answer.ok) {
    const tokens = tokensOfUser.get(answer.user.id) ?? new Set<string>();
    tokens.add(token);
    tokensOfUser.set(answer.user.id, tokens);
  }
}

/**
 * Asks identity's GET /auth/validate whether the token's session is still live and who its user is
 * now. Identity's own refusal (401/403 with its code) is passed on; identity that cannot be asked is
 * a 503: a service never grants from a token it could not check.
 */
async function askIdentity(token: string): Promise<Answer> {
  const cfg = config();
  let status: number;
  let text: string;
  try {
    const response = await undici().request(`${serviceUrl('identity')}/auth/validate`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(cfg.IDENTITY_TIMEOUT_MS),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch {
    return { ok: false, error: serviceUnavailable('The identity service could not check the session; try again shortly', Code.IDENTITY_UNAVAILABLE) };
  }
  let body: { valid?: boolean; sessionId?: string; user?: Partial<LiveUser>; code?: string; message?: string } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // An unparsable body confirms nothing; handled below.
  }
  if (status === 401 || status === 403) {
    const code = isErrorCode(body.code) ? body.code : Code.AUTH_TOKEN_INVALID;
    return { ok: false, error: httpError(code, body.message ?? 'The session is not valid', { status, error: STATUS_NAMES[status] }) };
  }
  const user = body.user;
  if (status !== 200 || body.valid !== true || typeof user?.id !== 'string' || typeof body.sessionId !== 'string') {
    return { ok: false, error: serviceUnavailable(`The identity service answered ${status} to a session check; try again shortly`, Code.IDENTITY_UNAVAILABLE) };
  }
  return {
    ok: true,
    user: {
      id: user.id,
      email: String(user.email),
      role: String(user.role),
      permissions: Array.isArray(user.permissions) ? user.permissions.map(String) : [],
      plan: user.plan as Plan,
      planPeriodEnd: typeof user.planPeriodEnd === 'string' ? user.planPeriodEnd : null,
      planSource: (PLAN_SOURCES as readonly unknown[]).includes(user.planSource) ? (user.planSource as PlanSource) : null,
      status: user.status as UserStatus,
      sessionId: body.sessionId,
    },
  };
}

/**
 * The live user of a token whose signature and claims were already verified locally (so garbage
 * never costs a call to identity). A cached answer younger than SESSION_CHECK_CACHE_SECONDS is
 * reused; an unavailable identity is never cached.
 */
export async function liveUser(token: string, subject: string): Promise<LiveUser> {
  const ttlMs = config().SESSION_CHECK_CACHE_SECONDS * 1000;
  const now = currentPlatform().clock.now().getTime();
  const cached = cache().answers.get(token);
  let answer: Answer;
  if (cached && now - cached.at < ttlMs) answer = cached.answer;
  else {
    answer = await askIdentity(token);
    const unavailable = !answer.ok && answer.error.status === 503;
    if (ttlMs > 0 && !unavailable) remember(token, now, answer);
  }
  if (!answer.ok) throw answer.error;
  if (answer.user.id !== subject) throw unauthorized('Identity did not confirm the access token', Code.AUTH_TOKEN_INVALID);
  return answer.user;
}
