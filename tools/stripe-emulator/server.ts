import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { Logger } from '../../shared/logging';
import { Account, Ctx, DEFAULT_BILLING, type BillingSettings } from './account';
import { catalogRoutes } from './catalog';
import { clockRoutes } from './clocks';
import { customerRoutes } from './customers';
import { disputeRoutes } from './disputes';
import { newId, StripeApiError, type Fields } from './errors';
import { deliveryHeader, Deliveries, eventRoutes } from './events';
import { parseStripeForm } from './form';
import { invoiceRoutes, settleIntent } from './invoices';
import { paymentIntentRoutes } from './payment-intents';
import { portalRoutes, servePage } from './portal';
import { refundRoutes } from './refunds';
import { match, type Answer, type Route } from './router';
import { subscriptionRoutes } from './subscriptions';
import { WebhookEndpoints, webhookEndpointRoute, type PresetEndpoint } from './webhook-endpoints';

/**
 * A local server speaking the slice of Stripe's API the platform uses, with Stripe's object shapes
 * (the `stripe` package's types), error format (`{ error: { type, code, message, param } }`) and
 * Idempotency-Key semantics: PaymentIntents, charges and refunds (payment-intents.ts), events
 * (events.ts), webhook endpoints (webhook-endpoints.ts), and Stripe Billing: customers, products
 * and prices, subscriptions, invoices and their payments, test clocks, disputes and the Customer
 * Portal (one module each). Every change raises Stripe's events, delivered signed to each enabled
 * endpoint subscribed to their type, in the order they were raised, before the call answers (as
 * `stripe trigger` does), so scripts see the effect at once. State is in memory: it stands in for
 * Stripe, not for our database. Not deployed: it lives in tools/, outside the Function App package.
 */
export interface StripeEmulatorOptions {
  port?: number;
  host?: string;
  /** Endpoints registered at start with their own secrets (the dev host's payment webhook). */
  endpoints?: PresetEndpoint[];
  /** The account's Billing settings: the retry schedule of failed renewals and what follows it. */
  billing?: Partial<BillingSettings>;
  log: Logger;
}

export interface StripeEmulator {
  url: string;
  stop(): Promise<void>;
}

export async function startStripeEmulator(options: StripeEmulatorOptions): Promise<StripeEmulator> {
  const account = new Account({ ...DEFAULT_BILLING, ...options.billing });
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  const endpoints = new WebhookEndpoints(options.endpoints);
  const deliveries = new Deliveries(endpoints, options.log);
  const routes: Route[] = [
    ...paymentIntentRoutes(settleIntent),
    ...refundRoutes,
    ...eventRoutes,
    ...customerRoutes,
    ...catalogRoutes,
    ...subscriptionRoutes,
    ...invoiceRoutes,
    ...clockRoutes,
    ...disputeRoutes,
    ...portalRoutes,
  ];

  function route(ctx: Ctx, method: string, path: string, params: Fields): Answer {
    const endpointAnswer = webhookEndpointRoute(endpoints, method, path, params);
    if (endpointAnswer) return endpointAnswer;
    const found = match(routes, method, path);
    if (!found) throw new StripeApiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
    return found.handler(ctx, params, found.ids);
  }

  /** A page of the server (a hosted invoice, the portal): no API key, HTML or PDF; its events delivered before it answers. */
  async function page(req: IncomingMessage, res: ServerResponse, url: URL, raw: string): Promise<boolean> {
    const ctx = new Ctx(account, { id: newId('req'), idempotency_key: null });
    const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ? parseStripeForm(raw) : {};
    const answer = servePage(ctx, req.method ?? 'GET', url.pathname, form);
    if (!answer) return false;
    await deliveries.deliver(ctx.events);
    res.writeHead(answer.status, answer.headers).end(answer.body);
    return true;
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
    if (!url.pathname.startsWith('/v1/') && (await page(req, res, url, raw))) return;
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
    const ctx = new Ctx(account, { id: newId('req'), idempotency_key: typeof key === 'string' ? key : null });
    try {
      const params = { ...parseStripeForm(url.search.slice(1)), ...parseStripeForm(raw) };
      const result = route(ctx, method, url.pathname, params);
      const delivery = deliveryHeader(await deliveries.deliver(ctx.events));
      status = result.status ?? 200;
      text = send(status, result.body, { ...(result.headers ?? {}), ...delivery, ...(scope ? { 'Idempotency-Key': key as string } : {}) });
    } catch (error) {
      if (!(error instanceof StripeApiError)) {
        options.log.error('stripe emulator failed', { error });
        send(500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
        return;
      }
      // What changed before the error (a declined payment's events) is delivered all the same.
      const delivery = deliveryHeader(await deliveries.deliver(ctx.events));
      status = error.status;
      text = send(
        status,
        {
          error: {
            type: error.type,
            message: error.message,
            ...(error.code ? { code: error.code } : {}),
            ...(error.param ? { param: error.param } : {}),
            ...error.extra,
          },
        },
        delivery,
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
  account.baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url: account.baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
