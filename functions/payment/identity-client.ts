import type { Plan, UserStatus } from '../../shared/auth/access-token';
import { request } from 'undici';
import { config, serviceUrl } from '../../shared/config';

/** How a plan update failed, in the categories of spec 7.2 (plus any other non-2xx answer). */
export type PlanUpdateFailureKind = 'unavailable' | 'unauthorized' | 'not_found' | 'rejected';

export interface PlanUpdateFailure {
  kind: PlanUpdateFailureKind;
  /** Short, stable description stored in the failed-sync record. */
  error: string;
  details: string;
  status?: number;
}

export type PlanUpdateResult = { ok: true; status: number } | { ok: false; failure: PlanUpdateFailure };

interface IdentityAnswer {
  status: number;
  text: string;
}

/**
 * One call to identity with undici's `request` (about a third of `fetch`'s per-call cost; a plan
 * push is one per event) over its keep-alive pool, bounded by PAYMENT_SYNC_TIMEOUT_MS from start to
 * last body byte. The body is always read, so the connection goes back to the pool.
 */
async function callIdentity(path: string, options: { method?: 'GET' | 'PUT'; headers: Record<string, string>; body?: string }): Promise<IdentityAnswer> {
  const response = await request(`${serviceUrl('identity')}${path}`, { ...options, signal: AbortSignal.timeout(config().PAYMENT_SYNC_TIMEOUT_MS) });
  return { status: response.statusCode, text: await response.body.text() };
}

/** At most `limit` characters of an error body, for diagnostics (never the request's token). */
const snippet = (text: string, limit = 300) => (text.length > limit ? `${text.slice(0, limit)}...` : text);

/** Why identity could not be asked: a timeout, or the connection error's code and message. */
function unreachable(error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${config().PAYMENT_SYNC_TIMEOUT_MS} ms`;
  return `${e.code ?? e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`;
}

/**
 * Spec 6.1 rule 2: PUT {auth_url}/admin/users/<userId>/plan with the service admin token, within
 * PAYMENT_SYNC_TIMEOUT_MS. Never throws: every outcome is a value the caller records.
 */
export async function updatePlanAtIdentity(userId: string, plan: Plan, now: Date = new Date()): Promise<PlanUpdateResult> {
  const cfg = config();
  let answer: IdentityAnswer;
  try {
    answer = await callIdentity(`/admin/users/${encodeURIComponent(userId)}/plan`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${cfg.AUTH_ADMIN_TOKEN}`,
        'x-service': cfg.PAYMENT_SERVICE_ID,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ plan, status: 'active', updatedBy: cfg.PAYMENT_SERVICE_ID, timestamp: now.toISOString() }),
    });
  } catch (error) {
    return { ok: false, failure: { kind: 'unavailable', error: 'Identity service unavailable', details: unreachable(error) } };
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return { ok: true, status };
  const details = snippet(answer.text);
  if (status === 401) return { ok: false, failure: { kind: 'unauthorized', status, error: 'Identity rejected the service token', details } };
  if (status === 404) return { ok: false, failure: { kind: 'not_found', status, error: 'User not found in identity', details } };
  const kind = status >= 500 || status === 429 ? 'unavailable' : 'rejected';
  return { ok: false, failure: { kind, status, error: `Identity answered ${status}`, details } };
}

export interface IdentityUser {
  id: string;
  plan: Plan;
  status: UserStatus;
  /** The user's role as identity has it now (a demotion shows at once, unlike the token's claim). */
  role?: string;
}

/**
 * GET {auth_url}/auth/validate with the caller's token (spec 5.2): identity confirms the session
 * is still alive and returns the user as it is now (plan changes after the token was issued).
 * `invalid` means identity refused the token; `unavailable` means it could not be asked.
 */
export async function validateAtIdentity(token: string): Promise<{ ok: true; user: IdentityUser } | { ok: false; reason: 'invalid' | 'unavailable'; details: string }> {
  let answer: IdentityAnswer;
  try {
    answer = await callIdentity('/auth/validate', { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    return { ok: false, reason: 'unavailable', details: unreachable(error) };
  }
  if (answer.status === 401 || answer.status === 403) return { ok: false, reason: 'invalid', details: snippet(answer.text) };
  if (answer.status < 200 || answer.status >= 300) return { ok: false, reason: 'unavailable', details: `identity answered ${answer.status}` };
  let body: { user?: Record<string, unknown> } & Record<string, unknown> = {};
  try {
    body = JSON.parse(answer.text);
  } catch {
    // An unparsable 2xx body confirms nothing; handled as invalid below.
  }
  const user = (body.user ?? body) as Record<string, unknown>;
  const id = (user.id ?? user.userId ?? user.sub) as string | undefined;
  if (typeof id !== 'string' || body.valid === false) return { ok: false, reason: 'invalid', details: 'identity did not confirm the token' };
  return { ok: true, user: { id, plan: user.plan as Plan, status: user.status as UserStatus, role: typeof user.role === 'string' ? user.role : undefined } };
}
