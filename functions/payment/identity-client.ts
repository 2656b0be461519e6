import type { Plan, UserStatus } from '../../shared/auth/access-token';
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

/** Reads at most `limit` characters of an error body for diagnostics (never the request's token). */
async function bodySnippet(response: Response, limit = 300): Promise<string> {
  const text = await response.text().catch(() => '');
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

/**
 * Spec 6.1 rule 2: PUT {auth_url}/admin/users/<userId>/plan with the service admin token, within
 * PAYMENT_SYNC_TIMEOUT_MS. Never throws: every outcome is a value the caller records.
 */
export async function updatePlanAtIdentity(userId: string, plan: Plan, now: Date = new Date()): Promise<PlanUpdateResult> {
  const cfg = config();
  const url = `${serviceUrl('identity')}/admin/users/${encodeURIComponent(userId)}/plan`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${cfg.AUTH_ADMIN_TOKEN}`,
        'X-Service': cfg.PAYMENT_SERVICE_ID,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ plan, status: 'active', updatedBy: cfg.PAYMENT_SERVICE_ID, timestamp: now.toISOString() }),
      signal: AbortSignal.timeout(cfg.PAYMENT_SYNC_TIMEOUT_MS),
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const details = timedOut ? `no answer within ${cfg.PAYMENT_SYNC_TIMEOUT_MS} ms` : `${e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`;
    return { ok: false, failure: { kind: 'unavailable', error: 'Identity service unavailable', details } };
  }
  if (response.ok) {
    await response.arrayBuffer().catch(() => undefined);
    return { ok: true, status: response.status };
  }
  const details = await bodySnippet(response);
  if (response.status === 401) return { ok: false, failure: { kind: 'unauthorized', status: 401, error: 'Identity rejected the service token', details } };
  if (response.status === 404) return { ok: false, failure: { kind: 'not_found', status: 404, error: 'User not found in identity', details } };
  const kind = response.status >= 500 || response.status === 429 ? 'unavailable' : 'rejected';
  return { ok: false, failure: { kind, status: response.status, error: `Identity answered ${response.status}`, details } };
}

export interface IdentityUser {
  id: string;
  plan: Plan;
  status: UserStatus;
}

/**
 * GET {auth_url}/auth/validate with the caller's token (spec 5.2): identity confirms the session
 * is still alive and returns the user as it is now (plan changes after the token was issued).
 * `invalid` means identity refused the token; `unavailable` means it could not be asked.
 */
export async function validateAtIdentity(token: string): Promise<{ ok: true; user: IdentityUser } | { ok: false; reason: 'invalid' | 'unavailable'; details: string }> {
  let response: Response;
  try {
    response = await fetch(`${serviceUrl('identity')}/auth/validate`, {
      headers: { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(config().PAYMENT_SYNC_TIMEOUT_MS),
    });
  } catch (error) {
    return { ok: false, reason: 'unavailable', details: (error as Error).message };
  }
  if (response.status === 401 || response.status === 403) {
    return { ok: false, reason: 'invalid', details: await bodySnippet(response) };
  }
  if (!response.ok) return { ok: false, reason: 'unavailable', details: `identity answered ${response.status}` };
  const body = (await response.json().catch(() => ({}))) as { user?: Record<string, unknown> } & Record<string, unknown>;
  const user = (body.user ?? body) as Record<string, unknown>;
  const id = (user.id ?? user.userId ?? user.sub) as string | undefined;
  if (typeof id !== 'string' || body.valid === false) return { ok: false, reason: 'invalid', details: 'identity did not confirm the token' };
  return { ok: true, user: { id, plan: user.plan as Plan, status: user.status as UserStatus } };
}
