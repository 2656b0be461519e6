import { ADMIN, USER } from '../../shared/auth/guards';
import { healthFunction } from '../../shared/health';
import { PUBLIC, routes } from '../../shared/http/route';
import { paymentContext } from './context';
import { paymentChecks } from './health';
import * as r from './operations';
import { STRIPE_SIGNED } from './guards';
import * as s from './schemas';

const route = routes('payment', paymentContext);

/** payment's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
export const ROUTES = [
  route('plans', 'GET', 'plans', PUBLIC, { 200: s.PLANS }, r.listPlans),
  route('create-payment-intent', 'POST', 'create-payment-intent', USER, { body: s.INTENT_BODY, 200: s.INTENT, 500: r.INTENT_NOT_RECORDED, 502: r.STRIPE_REFUSED }, r.createIntent),
  route('user-status', 'GET', 'user-status', USER, { 200: s.USER_STATUS }, r.status),
  route('webhook', 'POST', 'webhook', STRIPE_SIGNED, { body: s.WEBHOOK_BODY, 200: s.WEBHOOK_OUTCOME, 500: r.WEBHOOK_FAILED }, r.webhook),
  healthFunction('payment', paymentContext, (_ctx, skip) => paymentChecks(skip)),
  route('admin-unsynced', 'GET', 'admin/unsynced', ADMIN, { query: s.UNSYNCED_QUERY, 200: s.UNSYNCED }, r.unsynced),
  route('admin-replay', 'POST', 'admin/replay', ADMIN, { body: s.REPLAY_BODY, 200: s.REPLAYED }, r.replaySyncs),
  route('admin-payment-approve', 'POST', 'admin/payments/{paymentIntentId}/approve', ADMIN, { params: s.PAYMENT_PARAM, body: s.DECISION_BODY, 200: s.APPROVED, 404: r.NO_PAYMENT, 409: r.NOT_IN_REVIEW }, r.approve),
  route('admin-payment-reject', 'POST', 'admin/payments/{paymentIntentId}/reject', ADMIN, { params: s.PAYMENT_PARAM, body: s.DECISION_BODY, 200: s.REJECTED, 404: r.NO_PAYMENT, 409: r.NOT_IN_REVIEW }, r.reject),
  route('admin-review-decisions', 'GET', 'admin/review-decisions', ADMIN, { query: s.DECISIONS_QUERY, 200: s.DECISIONS }, r.decisions),
];

export const DESCRIPTION =
  "Card payments with Stripe for signed-in users: plans, payment intents, the signed webhook, each user's payment and plan-sync status, and the plan sync into identity that never loses an update.";
