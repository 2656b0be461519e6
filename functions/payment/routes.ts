import { ADMIN, USER } from '../../shared/auth/guards';
import { Code } from '../../shared/http/errors';
import { PUBLIC, refusal, routes } from '../../shared/http/route';
import { paymentContext } from './context';
import { STRIPE_SIGNED } from './guards';
import { HEALTH } from './health';
import * as admin from './operations/admin';
import * as billing from './operations/billing';
import * as checkout from './operations/checkout';
import { webhook } from './operations/webhook';
import * as s from './schemas';

const route = routes('payment', paymentContext);

// The refusals of payment's routes beyond their guards and their input.
/** The webhook's one failure: identity failing never fails it (the sync is retried), our own database does. */
const WEBHOOK_FAILED = refusal([Code.INTERNAL], { when: 'Our own database failed: nothing was recorded, and Stripe delivers the event again.' });
/** Stripe refusing the intent, and our own database failing to record it (no client secret leaves unrecorded). */
const STRIPE_REFUSED = refusal([Code.STRIPE_ERROR], { when: 'Stripe refused the request.' });
const INTENT_NOT_RECORDED = refusal([Code.INTERNAL], {
  when: 'Our own database failed: the intent was not recorded, so no client secret is returned; a retry with the same Idempotency-Key gets the same intent.',
});
/** A second subscription while one bills the user; a change or cancellation without one. */
const NO_SECOND_SUBSCRIPTION = refusal([Code.SUBSCRIPTION_EXISTS]);
const NOT_SUBSCRIBED = refusal([Code.NO_SUBSCRIPTION]);
/** A billing event whose invoice Stripe could not be asked about: nothing was recorded, and Stripe delivers the event again. */
const STRIPE_REFUSED_READ = refusal([Code.STRIPE_ERROR], { when: 'Stripe refused a read the event needs; nothing was recorded and Stripe delivers it again.' });
const STRIPE_DOWN = refusal([Code.STRIPE_UNAVAILABLE, Code.STRIPE_NOT_CONFIGURED], {
  when: 'Stripe could not be asked about the event; nothing was recorded and Stripe delivers it again.',
});
/** The refusals of a decision on a payment: an unknown id, or a payment that is not in manual review. */
const NO_PAYMENT = refusal([Code.PAYMENT_NOT_FOUND]);
const NOT_IN_REVIEW = refusal([Code.PAYMENT_NOT_IN_REVIEW]);

/** payment's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
export const ROUTES = [
  route('plans', 'GET', 'plans', PUBLIC, { 200: s.PLANS }, checkout.listPlans),
  route('create-payment-intent', 'POST', 'create-payment-intent', USER, { body: s.INTENT_BODY, 200: s.INTENT, 500: INTENT_NOT_RECORDED, 502: STRIPE_REFUSED }, checkout.createIntent),
  route('user-status', 'GET', 'user-status', USER, { 200: s.USER_STATUS }, checkout.status),
  route('subscriptions-create', 'POST', 'subscriptions', USER, { body: s.SUBSCRIBE_BODY, 200: s.SUBSCRIBED, 409: NO_SECOND_SUBSCRIPTION, 502: STRIPE_REFUSED }, billing.subscribe),
  route('subscription-change', 'POST', 'subscription/change', USER, { body: s.CHANGE_PLAN_BODY, 200: s.PLAN_CHANGED, 404: NOT_SUBSCRIBED, 502: STRIPE_REFUSED }, billing.changePlan),
  route('subscription-cancel', 'POST', 'subscription/cancel', USER, { body: s.CANCEL_BODY, 200: s.CANCELLED, 404: NOT_SUBSCRIBED, 502: STRIPE_REFUSED }, billing.cancel),
  route('portal', 'POST', 'portal', USER, { body: s.PORTAL_BODY, 200: s.PORTAL, 404: refusal([Code.NO_BILLING_ACCOUNT]), 502: STRIPE_REFUSED }, billing.portal),
  route('billing', 'GET', 'billing', USER, { 200: s.BILLING, 502: STRIPE_REFUSED }, billing.billing),
  route('webhook', 'POST', 'webhook', STRIPE_SIGNED, { body: s.WEBHOOK_BODY, 200: s.WEBHOOK_OUTCOME, 500: WEBHOOK_FAILED, 502: STRIPE_REFUSED_READ, 503: STRIPE_DOWN }, webhook),
  HEALTH,
  route('admin-unsynced', 'GET', 'admin/unsynced', ADMIN, { query: s.UNSYNCED_QUERY, 200: s.UNSYNCED }, admin.unsynced),
  route('admin-replay', 'POST', 'admin/replay', ADMIN, { body: s.REPLAY_BODY, 200: s.REPLAYED }, admin.replaySyncs),
  route('admin-payment-approve', 'POST', 'admin/payments/{paymentIntentId}/approve', ADMIN, { params: s.PAYMENT_PARAM, body: s.DECISION_BODY, 200: s.APPROVED, 404: NO_PAYMENT, 409: NOT_IN_REVIEW }, admin.approve),
  route('admin-payment-reject', 'POST', 'admin/payments/{paymentIntentId}/reject', ADMIN, { params: s.PAYMENT_PARAM, body: s.DECISION_BODY, 200: s.REJECTED, 404: NO_PAYMENT, 409: NOT_IN_REVIEW }, admin.reject),
  route('admin-user-billing', 'GET', 'admin/users/{userId}/billing', ADMIN, { params: s.USER_PARAM, 200: s.BILLING_TIMELINE }, admin.userBilling),
  route('admin-accounts', 'GET', 'admin/accounts', ADMIN, { query: s.ACCOUNTS_QUERY, 200: s.ACCOUNTS }, admin.accounts),
  route('admin-review-decisions', 'GET', 'admin/review-decisions', ADMIN, { query: s.DECISIONS_QUERY, 200: s.DECISIONS }, admin.decisions),
];

export const DESCRIPTION =
  "Card payments with Stripe for signed-in users: plans, payment intents, the signed webhook, each user's payment and plan-sync status, and the plan sync into identity that never loses an update.";
