import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { deadUrl, deliver, paymentIntentObject, pointIdentityAt, startIdentityFront, stripeEvent } from '../payment/helpers';
import { advanceClock } from '../identity/support';
import { expectErrorAnswer } from '../helpers/errors';
import { loggedAtInfo } from '../helpers/logs';
import { MANUAL_REVIEW_NOT_REPLAYED } from '../../functions/payment/replay';

/**
 * The payment service's administration routes behind the console's Payments page: who may call
 * them (the role as identity has it now), what they list, and the replay.
 */
let host: TestHost;
let admin: SignedIn;
let buyer: SignedIn;

beforeAll(async () => {
  host = await startTestHost({ env: { PAYMENT_SYNC_TIMEOUT_MS: '800', PAYMENT_SYNC_MAX_ATTEMPTS: '2', PAYMENT_SYNC_RETRY_BASE_SECONDS: '3600' } });
  admin = await signInAdmin(host);
  buyer = await signIn(host, 'admin-routes-buyer@example.com');
});
afterAll(async () => {
  pointIdentityAt(undefined);
  await host.stop();
});

const get = (path: string, token?: string) => host.fetch(path, { headers: token ? bearer(token) : {} });
const replay = (token: string, body?: string) =>
  host.fetch('/payment/admin/replay', {
    method: 'POST',
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  });

/** A succeeded payment whose plan sync fails (identity unreachable from the payment service). */
async function failedSync(id: string, user: SignedIn) {
  pointIdentityAt(await deadUrl());
  try {
    const res = await deliver(host, stripeEvent('payment_intent.succeeded', paymentIntentObject(id, { userId: user.user.id, planType: 'pro', amount: 2900 })));
    expect(res.body.sync.success).toBe(false);
  } finally {
    pointIdentityAt(undefined);
  }
}

describe('who may call them', () => {
  test('no token: 401 on both', async () => {
    await expectErrorAnswer(await get('/payment/admin/unsynced'), 401, 'AUTH_REQUIRED');
    const res = await host.fetch('/payment/admin/replay', { method: 'POST' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  test('a plain user: 403 ADMIN_REQUIRED, and no replay happens', async () => {
    const res = await get('/payment/admin/unsynced', buyer.accessToken);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'ADMIN_REQUIRED' });
    await expectErrorAnswer(await replay(buyer.accessToken, '{}'), 403, 'ADMIN_REQUIRED');
  });

  test('a demoted admin is refused within the session-check bound although the token still says admin', async () => {
    const ops = await signIn(host, 'ops-demoted@example.com');
    const grant = await host.fetch(`/identity/admin/users/${ops.user.id}/roles`, {
      method: 'POST',
      headers: { ...bearer(admin.accessToken), 'content-type': 'application/json' },
      body: JSON.stringify({ roleId: 'admin' }),
    });
    expect(grant.status).toBe(200);
    const promoted = await signIn(host, 'ops-demoted@example.com');
    expect(promoted.user.role).toBe('admin');
    expect((await get('/payment/admin/unsynced', promoted.accessToken)).status).toBe(200);
    // Role changes end the user's sessions; a sign-in as a user again gives a live session whose old admin token is refused.
    const demote = await host.fetch(`/identity/admin/users/${ops.user.id}/roles/admin`, { method: 'DELETE', headers: bearer(admin.accessToken) });
    expect(demote.status).toBe(200);
    advanceClock(6_000); // past SESSION_CHECK_CACHE_SECONDS (5)
    const res = await get('/payment/admin/unsynced', promoted.accessToken);
    jest.useRealTimers();
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'AUTH_SESSION_REVOKED' });
  });

  test('identity out of reach: 503 IDENTITY_UNAVAILABLE, nothing listed or replayed', async () => {
    pointIdentityAt(await deadUrl());
    try {
      const res = await get('/payment/admin/unsynced', admin.accessToken);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'IDENTITY_UNAVAILABLE' });
      await expectErrorAnswer(await replay(admin.accessToken, '{}'), 503, 'IDENTITY_UNAVAILABLE');
    } finally {
      pointIdentityAt(undefined);
    }
  });
});

describe('GET /payment/admin/unsynced', () => {
  test('lists failed and manual-review syncs with the failed-sync record; replay syncs them and empties the list', async () => {
    const empty = (await (await get('/payment/admin/unsynced', admin.accessToken)).json()) as any;
    expect(empty.summary).toEqual({ pending: 0, failed: 0, manual_review: 0, total: 0 });
    expect(empty.payments).toEqual([]);

    const second = await signIn(host, 'admin-routes-second@example.com');
    await failedSync('pi_admin_failed', buyer);
    const res = await get('/payment/admin/unsynced', admin.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as any;
    expect(body.summary).toEqual({ pending: 0, failed: 1, manual_review: 0, total: 1 });
    expect(body.failedSyncRecordsAvailable).toBe(true);
    expect(body.payments).toEqual([
      expect.objectContaining({
        paymentIntentId: 'pi_admin_failed',
        userId: buyer.user.id,
        planType: 'pro',
        amount: 2900,
        status: 'succeeded',
        sync: expect.objectContaining({
          state: 'failed',
          plan: 'pro',
          attempts: 1,
          lastError: expect.stringMatching(/^Identity service unavailable: ECONNREFUSED/),
        }),
        failedSyncRecord: expect.objectContaining({ userId: buyer.user.id, planType: 'pro', error: 'Identity service unavailable', retryCount: 0 }),
      }),
    ]);

    // limit bounds the list, not the counts
    await failedSync('pi_admin_second', second);
    const limited = (await (await get('/payment/admin/unsynced?limit=1', admin.accessToken)).json()) as any;
    expect(limited.summary.total).toBe(2);
    expect(limited.payments.map((p: { paymentIntentId: string }) => p.paymentIntentId)).toEqual(['pi_admin_failed']);

    let replayed!: Response;
    const lines = await loggedAtInfo(host, async () => (replayed = await replay(admin.accessToken)));
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({ success: true, replayedPayments: 2, users: 2, failedUsers: 0 });
    // The log is where operations read who replayed, and what came of it.
    const replayLines = lines.filter((line) => String(line.msg).startsWith('plan-sync replay'));
    expect(replayLines.map(({ level, msg, adminId, payments, users, failed }) => ({ level, msg, adminId, payments, users, failed }))).toEqual([
      { level: 'info', msg: 'plan-sync replay requested from the console', adminId: admin.user.id, payments: undefined, users: undefined, failed: undefined },
      { level: 'info', msg: 'plan-sync replay finished', adminId: admin.user.id, payments: 2, users: 2, failed: 0 },
    ]);
    const after = (await (await get('/payment/admin/unsynced', admin.accessToken)).json()) as any;
    expect(after.summary.total).toBe(0);
    const plan = await host.fetch('/identity/auth/validate', { headers: bearer(buyer.accessToken) });
    expect(((await plan.json()) as any).user.plan).toBe('pro');
  });

  test.each(['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'state=failed'])('bad query %s: 400', async (query) => {
    const res = await get(`/payment/admin/unsynced?${query}`, admin.accessToken);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe('VALIDATION_FAILED');
  });
});

describe('POST /payment/admin/replay', () => {
  test('nothing to replay: success with zero', async () => {
    const res = await replay(admin.accessToken, '{}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true,
      replayedPayments: 0,
      users: 0,
      failedUsers: 0,
      results: [],
      manualReview: { notReplayed: 0, note: MANUAL_REVIEW_NOT_REPLAYED },
    });
  });

  test('identity refusing the pushes: success false with the users counted failed, the syncs still listed; manual review counted in the total and never replayed', async () => {
    const refused = await signIn(host, 'replay-refused@example.com');
    const underpaid = await signIn(host, 'replay-underpaid@example.com');
    await failedSync('pi_replay_refused', refused);
    const review = await deliver(
      host,
      stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_replay_underpaid', { userId: underpaid.user.id, planType: 'pro', amount: 100 })),
    );
    expect(review.body.action).toBe('manual_review');
    const listed = async () => (await (await get('/payment/admin/unsynced', admin.accessToken)).json()) as any;
    expect((await listed()).summary).toEqual({ pending: 0, failed: 1, manual_review: 1, total: 2 });

    // Identity answers the admin's session check and refuses every plan push (the platform's 500 page).
    const front = await startIdentityFront(() => host.url);
    front.state.mode = 'failing';
    pointIdentityAt(front.url);
    try {
      const res = await replay(admin.accessToken, '{}');
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      // The payment in manual review is not pushed: only the failed sync is replayed, and the answer says so.
      expect(body).toMatchObject({
        success: false,
        replayedPayments: 1,
        users: 1,
        failedUsers: 1,
        manualReview: { notReplayed: 1, note: MANUAL_REVIEW_NOT_REPLAYED },
      });
      expect(body.results).toEqual([expect.objectContaining({ success: false, userId: refused.user.id })]);
      expect(front.state.planUpdates.map((u) => u.userId)).toEqual([refused.user.id]);
    } finally {
      pointIdentityAt(undefined);
      await front.stop();
    }
    const after = await listed();
    expect(after.summary.total).toBe(2);
    expect(after.payments.map((p: { paymentIntentId: string }) => p.paymentIntentId).sort()).toEqual(['pi_replay_refused', 'pi_replay_underpaid']);
  });

  test.each([
    ['malformed JSON', '{', 400, 'INVALID_JSON'],
    ['an unknown field', '{"userId":"x"}', 400, 'VALIDATION_FAILED'],
    ['not an object', '[]', 400, 'VALIDATION_FAILED'],
    ['more than 1 KB', JSON.stringify({ pad: 'x'.repeat(2000) }), 413, 'PAYLOAD_TOO_LARGE'],
  ])('%s: %i', async (_name, body, status, code) => {
    const res = await replay(admin.accessToken, body as string);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ code });
  });
});
