import { appSettings } from '../helpers/context';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { DEFAULT_PLANS } from '../../shared/plans';
import { paymentContext, withLog } from '../../functions/payment/context';
import type { Logger } from '../../shared/logging';
import { currentPlatform, type Platform } from '../../shared/platform';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, type SignedIn } from '../helpers/identity';

const signer = new Stripe('sk_test_signer_for_tests');

let eventCounter = 0;

/**
 * payment's context on `host`, as an invocation there gets it (its settings as they are now, its
 * clock, database and storage), for a test that calls payment's functions itself; logging to `log`
 * when the test reads what they log.
 */
export const paymentOn = (host: { platform: Platform }, log?: Logger) => {
  const ctx = contextOf(paymentContext, host);
  return log ? withLog(ctx, log) : ctx;
};

/** A Stripe event envelope as Stripe sends it. */
export function stripeEvent(type: string, object: Record<string, unknown>, options: { id?: string; created?: number } = {}) {
  return {
    id: options.id ?? `evt_test_${Date.now()}_${++eventCounter}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

export function paymentIntentObject(id: string, fields: { userId: string; planType: string; amount: number; currency?: string; status?: string }) {
  return {
    id,
    object: 'payment_intent',
    amount: fields.amount,
    amount_received: fields.amount,
    currency: fields.currency ?? 'usd',
    status: fields.status ?? 'succeeded',
    metadata: { userId: fields.userId, planType: fields.planType, priceVersion: '2026-01' },
    last_payment_error: null,
    created: Math.floor(Date.now() / 1000),
  };
}

export function chargeObject(paymentIntentId: string, amount: number, refunded: number) {
  return {
    id: `ch_${paymentIntentId}`,
    object: 'charge',
    amount,
    amount_refunded: refunded,
    refunded: refunded >= amount,
    currency: 'usd',
    payment_intent: paymentIntentId,
    status: 'succeeded',
  };
}

/** Checkout through the API: the payment record exists (pending) before Stripe sends anything. */
export async function checkout(host: TestHost, user: SignedIn, planType: string, amount: number): Promise<string> {
  const res = await host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify({ amount, planType, userId: user.user.id }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { paymentIntentId: string }).paymentIntentId;
}

/** Buys a plan as a browser does: the intent from the API, confirmed on the local Stripe (which delivers the signed event). */
export async function buyOnLocalStripe(host: TestHost, user: SignedIn, planType: string, amount: number, card = 'pm_card_visa') {
  const pi = await checkout(host, user, planType, amount);
  const confirmed = await paymentOn(host).stripe.paymentIntents.confirm(pi, { payment_method: card });
  expect(confirmed.status).toBe('succeeded');
  return { pi, charge: String(confirmed.latest_charge) };
}

/** Opens a chargeback on a charge of the local Stripe (its test helper), which delivers `charge.dispute.created`. */
export const openDisputeOn = (host: { platform: Platform }, charge: string) =>
  paymentOn(host).stripe.rawRequest('POST', `/v1/test_helpers/charges/${charge}/dispute`, {}) as Promise<Stripe.Dispute>;

/** Posts an event signed exactly as Stripe signs it (or with the header given). */
export async function deliver(host: TestHost, event: object, options: { secret?: string; timestamp?: number; header?: string | null; body?: string } = {}) {
  const payload = options.body ?? JSON.stringify(event);
  const header =
    options.header === undefined
      ? signer.webhooks.generateTestHeaderString({
          payload: JSON.stringify(event),
          secret: options.secret ?? appSettings().STRIPE_WEBHOOK_SECRET,
          timestamp: options.timestamp,
        })
      : options.header;
  const response = await host.fetch('/payment/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(header === null ? {} : { 'stripe-signature': header }) },
    body: payload,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/**
 * What the front answers instead of forwarding: identity's own refusals (401 token refused, 404 user
 * unknown, 409 without saying which plan it holds, 400), and what the platform in front of identity
 * answers when it throttles (429, a body of exactly the 300 characters payment keeps of an answer)
 * or fails (500 with its HTML error page, longer than that).
 */
export const FRONT_ANSWERS = {
  unauthorized: { status: 401, type: 'application/json', body: identityError('Invalid service token', 'Invalid service token', 'AUTH_SERVICE_TOKEN_INVALID') },
  not_found: { status: 404, type: 'application/json', body: identityError('Not found', 'User not found', 'USER_NOT_FOUND') },
  conflict: { status: 409, type: 'application/json', body: identityError('Conflict', 'A newer plan update was applied', 'PLAN_UPDATE_STALE') },
  invalid: { status: 400, type: 'application/json', body: identityError('Bad request', 'plan must be one of free, pro, enterprise', 'VALIDATION_FAILED') },
  throttled: { status: 429, type: 'text/plain', body: 'Rate limit is exceeded. Try again in 1 seconds.'.padEnd(300, '.') },
  failing: {
    status: 500,
    type: 'text/html',
    body: `<!DOCTYPE html><html><head><title>500 - Internal server error.</title></head><body>${'<p>There is a problem with the page you are looking for, and it cannot be displayed.</p>'.repeat(8)}</body></html>`,
  },
};

/** Identity's error envelope. */
function identityError(error: string, message: string, code: string): string {
  return JSON.stringify({ error, message, code, timestamp: '2026-11-27T10:00:00.000Z' });
}

export type IdentityMode = 'forward' | 'hang' | keyof typeof FRONT_ANSWERS;

/**
 * A loopback HTTP server standing in front of identity: forwards to the real identity of the dev
 * host, or answers a plan update with one of FRONT_ANSWERS, or never answers. Counts plan updates
 * it sees, and how many it held at once; `duringPush`, when set, runs after identity applied a forwarded plan update and before
 * the answer goes back (what another instance does meanwhile).
 */
export async function startIdentityFront(target: () => string) {
  const state = {
    mode: 'forward' as IdentityMode,
    planUpdates: [] as { userId: string; body: any; headers: http.IncomingHttpHeaders }[],
    duringPush: undefined as undefined | ((userId: string) => Promise<void>),
    /** Plan updates being answered now, and the most at once since the test reset it. */
    pushing: 0,
    mostPushing: 0,
  };
  const hanging = new Set<http.ServerResponse>();
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const plan = /^\/identity\/admin\/users\/([^/]+)\/plan$/.exec(req.url ?? '');
    if (plan && req.method === 'PUT') {
      state.planUpdates.push({ userId: decodeURIComponent(plan[1]), body: JSON.parse(body.toString() || '{}'), headers: req.headers });
      state.mostPushing = Math.max(state.mostPushing, ++state.pushing);
      res.on('close', () => state.pushing--);
    }
    if (plan && state.mode !== 'forward') {
      if (state.mode === 'hang') {
        hanging.add(res);
        return;
      }
      const answer = FRONT_ANSWERS[state.mode];
      res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    const upstream = await fetch(`${target()}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
    const text = Buffer.from(await upstream.arrayBuffer());
    if (plan && upstream.ok) await state.duringPush?.(decodeURIComponent(plan[1]));
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
  }
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`;
  return {
    url,
    state,
    /** Back to forwarding, with nothing recorded: what each test starts from. */
    reset: () => {
      Object.assign(state, { mode: 'forward', duringPush: undefined, mostPushing: 0 });
      state.planUpdates.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        hanging.forEach((r) => r.destroy());
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Points the payment service's {auth_url} somewhere else for the rest of the test (the host reads config per call). */
export function pointIdentityAt(url: string | undefined): void {
  currentPlatform().reconfigure({ IDENTITY_URL: url });
}

/**
 * A dev host running identity and payment with payment as Azure runs it (an Azure host name, so no
 * local Stripe server), with `env` besides; payment reaches identity on the dev host.
 */
export async function startPaymentInAzure(env: Record<string, string>): Promise<TestHost> {
  const host = await startTestHost({ env: { SERVICES: 'identity,payment', WEBSITE_HOSTNAME: 'func-payment-x7.azurewebsites.net', ...env } });
  pointIdentityAt(`${host.url}/identity`);
  return host;
}

/** A loopback URL where nothing listens: connection refused, as when identity is down. */
export async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/identity`;
}

/**
 * A succeeded payment written straight into payment's table, as another instance's webhook left it:
 * its plan owed to identity since `at` (sync `pending`, due then) unless another sync state is given.
 */
export async function insertPaidPayment(
  host: { platform: Platform },
  payment: {
    id: string;
    userId: string;
    at: string;
    plan?: 'pro' | 'enterprise';
    syncState?: 'pending' | 'failed' | 'manual_review' | 'synced';
  },
): Promise<void> {
  const plan = payment.plan ?? 'pro';
  const { at } = payment;
  await paymentOn(host)
    .db.insertInto('payment_payments')
    .values({
      id: payment.id,
      user_id: payment.userId,
      plan_type: plan,
      amount: DEFAULT_PLANS.find((p) => p.id === plan)!.price,
      currency: 'usd',
      price_version: '2026-01',
      status: 'succeeded',
      status_at: at,
      failure_message: null,
      amount_refunded: 0,
      refunded_at: null,
      dispute_status: null,
      disputed_at: null,
      sync_state: payment.syncState ?? 'pending',
      sync_plan: plan,
      sync_attempts: 0,
      sync_error: null,
      sync_next_at: at,
      synced_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}
