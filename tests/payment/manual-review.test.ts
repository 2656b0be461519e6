import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { expectErrorAnswer } from '../helpers/errors';
import { deliver, paymentIntentObject, stripeEvent } from './helpers';

/**
 * Payments in manual review: Replay never takes them (issue 48, item 4: a signed success of 1 cent
 * for Enterprise was held for review, then the console's Replay granted Enterprise); each waits for
 * an operator's decision, approve or reject, with a reason, audited.
 */
let host: TestHost;
let admin: SignedIn;

beforeAll(async () => {
  host = await startTestHost();
  admin = await signInAdmin(host);
});
afterAll(async () => {
  await host.stop();
});

const post = (path: string, token: string, body: unknown = {}) =>
  host.fetch(path, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
const unsynced = async () => (await (await host.fetch('/payment/admin/unsynced', { headers: bearer(admin.accessToken) })).json()) as any;

/** The event: a signed success for a PaymentIntent this service never created, 1 cent for Enterprise. */
async function underpaidEnterprise(id: string, user: SignedIn) {
  const res = await deliver(
    host,
    stripeEvent('payment_intent.succeeded', paymentIntentObject(id, { userId: user.user.id, planType: 'enterprise', amount: 1 })),
  );
  expect(res.status).toBe(200);
  expect(res.body.action).toBe('manual_review');
}

test('the issue: 1 cent for Enterprise is held for review, and Replay leaves it there and the plan unchanged', async () => {
  const user = await signIn(host, 'one-cent@example.com');
  await underpaidEnterprise('pi_one_cent', user);
  const held = (await unsynced()).payments.find((p: { paymentIntentId: string }) => p.paymentIntentId === 'pi_one_cent');
  expect(held.sync).toMatchObject({
    state: 'manual_review',
    lastError: 'unrecorded payment of 1 usd for the enterprise plan, which costs 9900 usd',
  });

  const res = await post('/payment/admin/replay', admin.accessToken);
  expect(res.status).toBe(200);
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await res.json()).toMatchObject({
    success: true,
    replayedPayments: 0,
    users: 0,
    manualReview: {
      notReplayed: 1,
      note: 'Payments in manual review are not replayed: each waits for an operator to approve or reject it (POST /payment/admin/payments/{paymentIntentId}/approve or /reject, the Approve and Reject buttons of the console).',
    },
  });
  const after = (await unsynced()).payments.find((p: { paymentIntentId: string }) => p.paymentIntentId === 'pi_one_cent');
  expect(after.sync.state).toBe('manual_review');
});

const decide = (id: string, decision: 'approve' | 'reject', body: unknown, token = admin.accessToken) =>
  post(`/payment/admin/payments/${id}/${decision}`, token, body);
const decisionsFor = async (id: string) =>
  ((await (await host.fetch('/payment/admin/review-decisions', { headers: bearer(admin.accessToken) })).json()) as any).decisions.filter(
    (d: { paymentIntentId: string }) => d.paymentIntentId === id,
  );
const HELD_FOR = 'unrecorded payment of 1 usd for the enterprise plan, which costs 9900 usd';

test("approve: the plan is pushed through the plan sync, and the audit keeps the operator's id, the time and the reason", async () => {
  const user = await signIn(host, 'approved@example.com');
  await underpaidEnterprise('pi_approved', user);
  const before = Date.now();
  const res = await decide('pi_approved', 'approve', { reason: '  Paid the rest by bank transfer, ticket 4411  ' });
  expect(res.status).toBe(200);
  const decision = {
    paymentIntentId: 'pi_approved',
    userId: user.user.id,
    plan: 'enterprise',
    decision: 'approved',
    reason: 'Paid the rest by bank transfer, ticket 4411',
    heldFor: HELD_FOR,
    decidedBy: { id: admin.user.id, email: 'admin@example.com' },
    decidedAt: expect.any(String),
  };
  const body = (await res.json()) as any;
  expect(body).toEqual({
    decision,
    sync: { success: true, userId: user.user.id, plan: 'enterprise', paymentIntentId: 'pi_approved' },
    syncState: 'synced',
  });
  expect(Date.parse(body.decision.decidedAt)).toBeGreaterThanOrEqual(before - 1000);
  expect(await planInIdentity(host, user)).toBe('enterprise');
  expect(await decisionsFor('pi_approved')).toEqual([{ ...decision, decidedAt: body.decision.decidedAt }]);
  expect((await unsynced()).payments.map((p: { paymentIntentId: string }) => p.paymentIntentId)).not.toContain('pi_approved');

  // Decided once: a second decision is refused, saying what was decided, and changes nothing.
  const again = await expectErrorAnswer(await decide('pi_approved', 'reject', { reason: 'changed my mind' }), 409, 'PAYMENT_NOT_IN_REVIEW');
  expect(again.message).toBe(
    `Payment pi_approved is not in manual review (its plan sync is synced; it was approved by admin@example.com at ${body.decision.decidedAt}); only a payment in manual review is approved or rejected.`,
  );
  expect(again).toMatchObject({ syncState: 'synced', decision: { decision: 'approved', decidedBy: { id: admin.user.id } } });
  expect(await decisionsFor('pi_approved')).toHaveLength(1);
  expect(await planInIdentity(host, user)).toBe('enterprise');
});

test('reject: the plan stays as it is, the payment owes identity nothing, and the decision is recorded', async () => {
  const user = await signIn(host, 'rejected@example.com');
  await underpaidEnterprise('pi_rejected', user);
  const res = await decide('pi_rejected', 'reject', { reason: 'One cent for Enterprise: a probe, not a purchase' });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body).toEqual({
    decision: {
      paymentIntentId: 'pi_rejected',
      userId: user.user.id,
      plan: 'enterprise',
      decision: 'rejected',
      reason: 'One cent for Enterprise: a probe, not a purchase',
      heldFor: HELD_FOR,
      decidedBy: { id: admin.user.id, email: 'admin@example.com' },
      decidedAt: expect.any(String),
    },
    syncState: 'not_required',
  });
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await decisionsFor('pi_rejected')).toEqual([body.decision]);
  expect((await unsynced()).payments.map((p: { paymentIntentId: string }) => p.paymentIntentId)).not.toContain('pi_rejected');
  // A replay afterwards does not bring it back either.
  expect((await post('/payment/admin/replay', admin.accessToken)).status).toBe(200);
  expect(await planInIdentity(host, user)).toBe('free');
  await expectErrorAnswer(await decide('pi_rejected', 'approve', { reason: 'second thoughts' }), 409, 'PAYMENT_NOT_IN_REVIEW');
  expect(await planInIdentity(host, user)).toBe('free');
});

describe('refused decisions change nothing', () => {
  let user: SignedIn;
  beforeAll(async () => {
    user = await signIn(host, 'refusals@example.com');
    await underpaidEnterprise('pi_refusals', user);
  });
  afterEach(async () => {
    expect(await planInIdentity(host, user)).toBe('free');
    expect(await decisionsFor('pi_refusals')).toEqual([]);
    expect((await unsynced()).payments.find((p: { paymentIntentId: string }) => p.paymentIntentId === 'pi_refusals').sync.state).toBe('manual_review');
  });

  test.each([
    ['no body', undefined, 'INVALID_JSON', 'Request body is empty'],
    ['no reason', {}, 'VALIDATION_FAILED', 'Invalid body: reason is required'],
    ['an empty reason', { reason: '' }, 'VALIDATION_FAILED', 'Invalid body: reason must NOT have fewer than 1 characters'],
    ['a reason of spaces', { reason: '   ' }, 'VALIDATION_FAILED', 'Invalid body: reason must match pattern'],
    ['a reason with a control character', { reason: 'ok\u0000' }, 'VALIDATION_FAILED', 'Invalid body: reason must match pattern'],
    ['a reason over 500 characters', { reason: 'x'.repeat(501) }, 'VALIDATION_FAILED', 'Invalid body: reason must NOT have more than 500 characters'],
    ['a reason that is not text', { reason: 42 }, 'VALIDATION_FAILED', 'Invalid body: reason must be string'],
    ['another field', { reason: 'fine', plan: 'enterprise' }, 'VALIDATION_FAILED', 'Invalid body: plan is not an allowed field'],
  ] as const)('%s: 400 saying what is wrong', async (_name, body, code, message) => {
    for (const decision of ['approve', 'reject'] as const) {
      const res = await host.fetch(`/payment/admin/payments/pi_refusals/${decision}`, {
        method: 'POST',
        headers: { ...bearer(admin.accessToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const error = await expectErrorAnswer(res, 400, code);
      expect(error.message.startsWith(message)).toBe(true);
    }
  });

  test('a plain user: 403 ADMIN_REQUIRED', async () => {
    const plain = await signIn(host, 'not-an-operator@example.com');
    for (const decision of ['approve', 'reject'] as const)
      await expectErrorAnswer(await decide('pi_refusals', decision, { reason: 'I approve of myself' }, plain.accessToken), 403, 'ADMIN_REQUIRED');
  });

  test('no token: 401', async () => {
    const res = await host.fetch('/payment/admin/payments/pi_refusals/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'anonymous' }),
    });
    await expectErrorAnswer(res, 401, 'AUTH_REQUIRED');
  });

  test('an unknown payment: 404 PAYMENT_NOT_FOUND', async () => {
    for (const decision of ['approve', 'reject'] as const) {
      const error = await expectErrorAnswer(await decide('pi_nobody_knows', decision, { reason: 'typo' }), 404, 'PAYMENT_NOT_FOUND');
      expect(error.message).toBe('No payment has the PaymentIntent id pi_nobody_knows.');
    }
  });

  test('a payment that is not in manual review (here synced): 409 PAYMENT_NOT_IN_REVIEW with its state', async () => {
    const other = await signIn(host, 'paid-properly@example.com');
    const paid = await deliver(
      host,
      stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_paid_properly', { userId: other.user.id, planType: 'pro', amount: 2900 })),
    );
    expect(paid.body.sync.success).toBe(true);
    for (const decision of ['approve', 'reject'] as const) {
      const error = await expectErrorAnswer(await decide('pi_paid_properly', decision, { reason: 'why not' }), 409, 'PAYMENT_NOT_IN_REVIEW');
      expect(error).toMatchObject({
        message: 'Payment pi_paid_properly is not in manual review (its plan sync is synced); only a payment in manual review is approved or rejected.',
        syncState: 'synced',
        decision: null,
      });
    }
    expect(await planInIdentity(host, other)).toBe('pro');
  });
});
