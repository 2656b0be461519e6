import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { Logger } from '../../shared/logging';
import { invalid, missing, newId, nowSeconds, StripeApiError, type Fields } from './errors';
import { parseStripeForm } from './form';
import { WebhookEndpoints, webhookEndpointRoute, type PresetEndpoint } from './webhook-endpoints';

/**
 * A local server speaking the slice of Stripe's API the platform uses: PaymentIntent
 * create/retrieve/confirm/cancel, refunds, events, and webhook endpoints (webhook-endpoints.ts),
 * with Stripe's object shapes, error format (`{ error: { type, code, message, param } }`) and
 * Idempotency-Key semantics. Confirming or refunding delivers the signed event
 * (`payment_intent.succeeded`, `payment_intent.payment_failed`, `charge.refunded`) to every enabled
 * endpoint subscribed to its type, each signed with that endpoint's secret, before it answers (as
 * `stripe trigger` does), so scripts see the effect at once. State is in memory: it stands in for
 * Stripe, not for our database. Not deployed: it lives in tools/, outside the Function App package.
 */
export interface StripeEmulatorOptions {
  port?: number;
  host?: string;
  /** Endpoints registered at start with their own secrets (the dev host's payment webhook). */
  endpoints?: PresetEndpoint[];
  log: Logger;
}

export interface StripeEmulator {
  url: string;
  stop(): Promise<void>;
}

type PaymentIntent = Stripe.PaymentIntent;

const DECLINING_METHODS = new Set(['pm_card_chargeDeclined', 'pm_card_visa_chargeDeclined', 'pm_card_chargeDeclinedInsufficientFunds']);
/** Stripe's minimum charge is about 50 cents in USD. */
const MINIMUM_AMOUNT = 50;

function paymentIntentObject(params: Fields): PaymentIntent {
  const id = newId('pi');
  const methods = (params.allowed_payment_method_types as string[] | undefined) ?? ['card'];
  return {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: methods,
    amount: Number(params.amount),
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic',
    client_secret: `${id}_secret_${randomBytes(18).toString('base64url').replace(/[-_]/g, '')}`,
    confirmation_method: 'automatic',
    created: nowSeconds(),
    currency: String(params.currency),
    customer: (params.customer as string) ?? null,
    customer_account: null,
    description: (params.description as string) ?? null,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: (params.metadata as Record<string, string>) ?? {},
    next_action: null,
    on_behalf_of: null,
    payment_method: (params.payment_method as string) ?? null,
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: methods,
    payment_record: null,
    processing: null,
    receipt_email: (params.receipt_email as string) ?? null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: params.payment_method ? 'requires_confirmation' : 'requires_payment_method',
    transfer_data: null,
    transfer_group: null,
  } as PaymentIntent;
}

function chargeObject(pi: PaymentIntent, id: string, refunded = 0): Stripe.Charge {
  return {
    id,
    object: 'charge',
    amount: pi.amount,
    amount_captured: pi.amount,
    amount_refunded: refunded,
    captured: true,
    created: nowSeconds(),
    currency: pi.currency,
    livemode: false,
    metadata: pi.metadata,
    paid: true,
    payment_intent: pi.id,
    payment_method: pi.payment_method as string,
    refunded: refunded >= pi.amount,
    status: 'succeeded',
  } as Stripe.Charge;
}

export async function startStripeEmulator(options: StripeEmulatorOptions): Promise<StripeEmulator> {
  const intents = new Map<string, PaymentIntent>();
  const refundedByIntent = new Map<string, number>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  const events = new Map<string, Stripe.Event>();
  const endpoints = new WebhookEndpoints(options.endpoints);
  const signer = new Stripe('sk_test_emulator_signer');

  function getIntent(id: string): PaymentIntent {
    const pi = intents.get(id);
    if (!pi) throw missing('payment_intent', id, 'intent');
    return pi;
  }

  /** Delivers one event to one endpoint, signed with the endpoint's secret; says how it answered. */
  async function deliver(event: Stripe.Event, endpoint: Stripe.WebhookEndpoint, secret: string): Promise<string> {
    // Stripe renders an event in the endpoint's API version (the account's when the endpoint has none).
    const payload = JSON.stringify({ ...event, api_version: endpoint.api_version ?? Stripe.API_VERSION });
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'Stripe-Signature': signer.webhooks.generateTestHeaderString({ payload, secret }),
        },
        body: payload,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      options.log.info('stripe emulator delivered event', { eventId: event.id, type: event.type, endpoint: endpoint.id, status: response.status });
      return `${event.type} ${event.id} -> ${response.status} ${text.slice(0, 500)}`;
    } catch (error) {
      options.log.warn('stripe emulator could not deliver event', { eventId: event.id, type: event.type, endpoint: endpoint.id, error });
      return `${event.type} ${event.id} -> not delivered: ${(error as Error).message}`;
    }
  }

  /** Creates the event and delivers it to each subscribed endpoint in turn; answers with how each answered, one line per endpoint. */
  async function emit(type: string, object: PaymentIntent | Stripe.Charge): Promise<string> {
    const targets = endpoints.subscribers(type);
    const event = {
      id: newId('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: nowSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: targets.length,
      request: { id: newId('req'), idempotency_key: null },
      type,
    } as unknown as Stripe.Event;
    events.set(event.id, event);
    if (!targets.length) return `${type} ${event.id} not delivered (no enabled webhook endpoint subscribes to ${type})`;
    const lines: string[] = [];
    for (const { endpoint, secret } of targets) lines.push(await deliver(event, endpoint, secret));
    return lines.join('\n');
  }

  const deliveryHeader = (delivery: string) => ({ 'Emulator-Webhook-Delivery': encodeURIComponent(delivery) });

  async function route(method: string, path: string, params: Fields): Promise<{ status?: number; body: unknown; headers?: Record<string, string> }> {
    const endpointAnswer = webhookEndpointRoute(endpoints, method, path, params);
    if (endpointAnswer) return endpointAnswer;
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/payment_intents') {
      const amount = Number(params.amount);
      if (params.amount === undefined) throw invalid('Missing required param: amount.', 'amount', 'parameter_missing');
      if (!Number.isInteger(amount)) throw invalid('Invalid integer: ' + String(params.amount), 'amount', 'parameter_invalid_integer');
      if (amount < MINIMUM_AMOUNT) throw invalid(`Amount must be at least ${MINIMUM_AMOUNT} cents`, 'amount', 'amount_too_small');
      if (typeof params.currency !== 'string' || !/^[a-z]{3}$/.test(params.currency))
        throw invalid('Missing or invalid param: currency.', 'currency', 'parameter_missing');
      const pi = paymentIntentObject(params);
      intents.set(pi.id, pi);
      if (params.confirm === 'true') return confirm(pi, params);
      return { body: pi };
    }
    if (method === 'GET' && (m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path))) return { body: getIntent(m[1]) };
    if (method === 'POST' && (m = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(path))) return confirm(getIntent(m[1]), params);
    if (method === 'POST' && (m = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(path))) {
      const pi = getIntent(m[1]);
      if (pi.status === 'succeeded' || pi.status === 'canceled') {
        throw new StripeApiError(
          400,
          'invalid_request_error',
          `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
          'payment_intent_unexpected_state',
          undefined,
          { payment_intent: pi },
        );
      }
      Object.assign(pi, { status: 'canceled', canceled_at: nowSeconds(), cancellation_reason: (params.cancellation_reason as string) ?? null });
      const delivery = await emit('payment_intent.canceled', pi);
      return { body: pi, headers: deliveryHeader(delivery) };
    }
    if (method === 'GET' && (m = /^\/v1\/events\/([^/]+)$/.exec(path))) {
      const event = events.get(m[1]);
      if (!event) throw missing('event', m[1], 'id');
      return { body: event };
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const pi = getIntent(String(params.payment_intent ?? ''));
      if (pi.status !== 'succeeded') throw invalid(`PaymentIntent ${pi.id} has no successful charge to refund.`, 'payment_intent', 'charge_not_refundable');
      const already = refundedByIntent.get(pi.id) ?? 0;
      const amount = params.amount === undefined ? pi.amount - already : Number(params.amount);
      if (!Number.isInteger(amount) || amount <= 0 || already + amount > pi.amount)
        throw invalid(
          `Refund amount ${String(params.amount)} is greater than unrefunded amount on charge (${pi.amount - already})`,
          'amount',
          'amount_too_large',
        );
      refundedByIntent.set(pi.id, already + amount);
      const refund = {
        id: newId('re'),
        object: 'refund',
        amount,
        charge: pi.latest_charge,
        created: nowSeconds(),
        currency: pi.currency,
        metadata: {},
        payment_intent: pi.id,
        reason: params.reason ?? null,
        status: 'succeeded',
      };
      const delivery = await emit('charge.refunded', chargeObject(pi, pi.latest_charge as string, already + amount));
      return { body: refund, headers: deliveryHeader(delivery) };
    }
    throw new StripeApiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  async function confirm(pi: PaymentIntent, params: Fields) {
    if (!['requires_payment_method', 'requires_confirmation'].includes(pi.status)) {
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `This PaymentIntent's status is ${pi.status}, so it cannot be confirmed.`,
        'payment_intent_unexpected_state',
        undefined,
        { payment_intent: pi },
      );
    }
    const method = (params.payment_method as string) ?? (pi.payment_method as string | null);
    if (!method)
      throw invalid('You cannot confirm this PaymentIntent because it is missing a payment method.', 'payment_method', 'payment_intent_unexpected_state');
    pi.payment_method = method;
    if (DECLINING_METHODS.has(method)) {
      const error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: method.includes('Insufficient') ? 'insufficient_funds' : 'generic_decline',
        message: 'Your card was declined.',
        payment_method: { id: method },
      };
      Object.assign(pi, { status: 'requires_payment_method', last_payment_error: error });
      const delivery = await emit('payment_intent.payment_failed', pi);
      throw new StripeApiError(402, 'card_error', 'Your card was declined.', 'card_declined', undefined, {
        decline_code: error.decline_code,
        payment_intent: pi,
        delivery,
      });
    }
    Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, latest_charge: newId('ch'), last_payment_error: null });
    const delivery = await emit('payment_intent.succeeded', pi);
    return { body: pi, headers: deliveryHeader(delivery) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://stripe.local');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': newId('req'), 'Stripe-Version': Stripe.API_VERSION, ...headers }).end(text);
      return text;
    };
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!auth) {
      send(401, {
        error: {
          type: 'invalid_request_error',
          message: 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.',
        },
      });
      return;
    }
    const key = req.headers['idempotency-key'];
    const scope = typeof key === 'string' && method === 'POST' ? `${auth[1]}:${key}` : undefined;
    const fingerprint = createHash('sha256').update(`${method} ${url.pathname} ${raw}`).digest('hex');
    if (scope) {
      const seen = idempotent.get(scope);
      if (seen && seen.fingerprint !== fingerprint) {
        send(400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        });
        return;
      }
      if (seen) {
        res.writeHead(seen.status, { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true', 'Idempotency-Key': key as string }).end(seen.body);
        return;
      }
    }
    let status = 200;
    let text: string;
    try {
      const params = { ...Object.fromEntries(url.searchParams), ...parseStripeForm(raw) };
      const result = await route(method, url.pathname, params);
      status = result.status ?? 200;
      text = send(status, result.body, { ...(result.headers ?? {}), ...(scope ? { 'Idempotency-Key': key as string } : {}) });
    } catch (error) {
      if (!(error instanceof StripeApiError)) {
        options.log.error('stripe emulator failed', { error });
        send(500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
        return;
      }
      status = error.status;
      const { delivery, ...extra } = error.extra as Fields & { delivery?: string };
      text = send(
        status,
        {
          error: {
            type: error.type,
            message: error.message,
            ...(error.code ? { code: error.code } : {}),
            ...(error.param ? { param: error.param } : {}),
            ...extra,
          },
        },
        delivery ? deliveryHeader(delivery) : {},
      );
    }
    // Stripe stores the first result of a key, errors included (except 5xx), for 24 hours.
    if (scope && status < 500) idempotent.set(scope, { fingerprint, status, body: text });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      options.log.error('stripe emulator request failed', { error });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
