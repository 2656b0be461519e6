import type { Plan } from '../../shared/auth/access-token';
import type { PlanHolding } from '../../shared/plan-ids';
import { serviceUrl } from '../../shared/config';
import type { PaymentConfig } from './settings';
import { undici } from '../../shared/http/undici';

/** How a plan update failed: identity unavailable (timeout, connection error), token refused (401), user unknown (404), or any other non-2xx answer. */
export type PlanUpdateFailureKind = 'unavailable' | 'unauthorized' | 'not_found' | 'rejected' | 'stale';

export interface PlanUpdateFailure {
  kind: PlanUpdateFailureKind;
  /** Short, stable description stored in the failed-sync record. */
  error: string;
  details: string;
  status?: number;
  /** For `stale`: the plan identity holds, from an update requested after ours. */
  current?: { plan?: Plan; status?: string; requestedAt?: string };
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
async function callIdentity(
  cfg: PaymentConfig,
  path: string,
  options: { method?: 'GET' | 'PUT'; headers: Record<string, string>; body?: string },
): Promise<IdentityAnswer> {
  const response = await undici().request(`${serviceUrl('identity', cfg)}${path}`, { ...options, signal: AbortSignal.timeout(cfg.PAYMENT_SYNC_TIMEOUT_MS) });
  return { status: response.statusCode, text: await response.body.text() };
}

/** At most `limit` characters of an error body, for diagnostics (never the request's token). */
const snippet = (text: string, limit = 300) => (text.length > limit ? `${text.slice(0, limit)}...` : text);

/** Why identity could not be asked: the timeout (undici rejects with the signal's reason, a TimeoutError), or the connection error's code and message. */
function unreachable(cfg: PaymentConfig, error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${cfg.PAYMENT_SYNC_TIMEOUT_MS} ms`;
  return `${e.code ?? e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`;
}

function currentPlanOf(text: string): PlanUpdateFailure['current'] {
  try {
    const current = (JSON.parse(text) as { current?: { plan?: Plan; status?: string; requestedAt?: string } }).current;
    return current && typeof current === 'object' ? { plan: current.plan, status: current.status, requestedAt: current.requestedAt } : undefined;
  } catch {
    return undefined;
  }
}

/** Identity as payment calls it (`ctx.identity`), under the settings it was made with. */
export interface IdentityClient {
  /**
   * After a successful payment: PUT <identity>/admin/users/<userId>/plan with the service admin token,
   * stamped `now`, within PAYMENT_SYNC_TIMEOUT_MS. Never throws: every outcome is a value the caller records.
   */
  updatePlan(userId: string, holding: PlanHolding, now: Date): Promise<PlanUpdateResult>;
}

export const identityClient = (cfg: PaymentConfig): IdentityClient => ({
  updatePlan: (userId, holding, now) => updatePlanAtIdentity(cfg, userId, holding, now),
});

async function updatePlanAtIdentity(cfg: PaymentConfig, userId: string, holding: PlanHolding, now: Date): Promise<PlanUpdateResult> {
  const { plan, periodEnd, source } = holding;
  let answer: IdentityAnswer;
  try {
    answer = await callIdentity(cfg, `/admin/users/${encodeURIComponent(userId)}/plan`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${cfg.AUTH_ADMIN_TOKEN}`,
        'x-service': cfg.PAYMENT_SERVICE_ID,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        plan,
        periodEnd,
        ...(source ? { source } : {}),
        status: 'active',
        updatedBy: cfg.PAYMENT_SERVICE_ID,
        timestamp: now.toISOString(),
      }),
    });
  } catch (error) {
    return { ok: false, failure: { kind: 'unavailable', error: 'Identity service unavailable', details: unreachable(cfg, error) } };
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return { ok: true, status };
  const details = snippet(answer.text);
  if (status === 401) return { ok: false, failure: { kind: 'unauthorized', status, error: 'Identity rejected the service token', details } };
  if (status === 404) return { ok: false, failure: { kind: 'not_found', status, error: 'User not found in identity', details } };
  if (status === 409)
    return { ok: false, failure: { kind: 'stale', status, error: 'Identity applied a newer plan update', details, current: currentPlanOf(answer.text) } };
  const kind = status >= 500 || status === 429 ? 'unavailable' : 'rejected';
  return { ok: false, failure: { kind, status, error: `Identity answered ${status}`, details } };
}
