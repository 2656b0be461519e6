import Stripe from 'stripe';
import type { Logger } from '../../shared/logging';
import { missing, refuseUnknown } from './errors';
import { array, listOf, listParams, text } from './params';
import type { Route } from './router';
import type { WebhookEndpoints } from './webhook-endpoints';

/**
 * Delivering a request's events: one at a time, in the order they were raised, each to every
 * enabled endpoint subscribed to its type (or to `*`), signed with that endpoint's secret and
 * rendered in its API version, as `stripe trigger` does, before the API call answers. How each
 * endpoint answered comes back in the `Emulator-Webhook-Delivery` header, one line per delivery.
 */

/** The header's size stays far below Node's 16 KB limit for all the headers of an answer. */
const DELIVERY_HEADER_LIMIT = 8_000;

export class Deliveries {
  private readonly signer = new Stripe('sk_test_emulator_signer');

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly log: Logger,
  ) {}

  private async deliverOne(event: Stripe.Event, endpoint: Stripe.WebhookEndpoint, secret: string): Promise<string> {
    // Stripe renders an event in the endpoint's API version (the account's when the endpoint has none).
    const payload = JSON.stringify({ ...event, api_version: endpoint.api_version ?? Stripe.API_VERSION });
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'Stripe-Signature': this.signer.webhooks.generateTestHeaderString({ payload, secret }),
        },
        body: payload,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      this.log.info('stripe emulator delivered event', { eventId: event.id, type: event.type, endpoint: endpoint.id, status: response.status });
      return `${event.type} ${event.id} -> ${response.status} ${text.slice(0, 500)}`;
    } catch (error) {
      this.log.warn('stripe emulator could not deliver event', { eventId: event.id, type: event.type, endpoint: endpoint.id, error });
      return `${event.type} ${event.id} -> not delivered: ${(error as Error).message}`;
    }
  }

  /**
   * Delivers the events in order; answers one line per delivery. An event no endpoint subscribes
   * to is recorded only: it has a line of its own when nothing of the request was delivered at
   * all, else it is counted in a last line.
   */
  async deliver(events: Stripe.Event[]): Promise<string[]> {
    const lines: string[] = [];
    const undelivered: string[] = [];
    for (const event of events) {
      const targets = this.endpoints.subscribers(event.type);
      (event as { pending_webhooks: number }).pending_webhooks = targets.length;
      if (!targets.length) {
        undelivered.push(`${event.type} ${event.id} not delivered (no enabled webhook endpoint subscribes to ${event.type})`);
        continue;
      }
      for (const { endpoint, secret } of targets) lines.push(await this.deliverOne(event, endpoint, secret));
    }
    if (!lines.length) return undelivered;
    if (undelivered.length) lines.push(`(${undelivered.length} more events no enabled webhook endpoint subscribes to)`);
    return lines;
  }
}

/** The `Emulator-Webhook-Delivery` header: the lines, URI-encoded, cut short (with a count of what was left out) past 8 KB. */
export function deliveryHeader(lines: string[]): Record<string, string> {
  if (!lines.length) return {};
  let kept = lines.length;
  const encode = (n: number) =>
    encodeURIComponent(
      [...lines.slice(0, n), ...(n < lines.length ? [`... ${lines.length - n} more lines (GET /v1/events lists every event)`] : [])].join('\n'),
    );
  let value = encode(kept);
  // Whole lines are left out, never part of one (a cut %XX escape would not decode); one line is at most ~6 KB encoded.
  while (value.length > DELIVERY_HEADER_LIMIT && kept > 1) value = encode(--kept);
  return { 'Emulator-Webhook-Delivery': value };
}

/** GET /v1/events (newest first; `type`, or `types[]`), GET /v1/events/:id. */
export const eventRoutes: Route[] = [
  [
    'GET',
    '/v1/events',
    (ctx, params) => {
      refuseUnknown(params, listParams('type', 'types'));
      const type = text(params, 'type');
      const types = array(params, 'types');
      const all = [...ctx.account.events.values()].filter((e) => (!type || e.type === type) && (!types || types.includes(e.type)));
      return { body: listOf(all, params, '/v1/events', 'event') };
    },
  ],
  [
    'GET',
    '/v1/events/:id',
    (ctx, _params, [id]) => {
      const event = ctx.account.events.get(id);
      if (!event) throw missing('event', id, 'id');
      return { body: event };
    },
  ],
];
