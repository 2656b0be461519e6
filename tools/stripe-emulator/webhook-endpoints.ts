import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { invalid, missing, newId, nowSeconds, refuseUnknown, StripeApiError, type Fields } from './errors';
import { listOf, listParams } from './params';

/**
 * Stripe's webhook endpoint API, as `stripe.webhookEndpoints` calls it: create (the only answer that
 * carries the signing secret), list (newest first, cursor paging), retrieve, update (url,
 * enabled_events, disabled, description, metadata; the API version of an endpoint cannot change),
 * delete. Events go to every enabled endpoint subscribed to their type, each signed with that
 * endpoint's own secret.
 */

/** Stripe's limit of webhook endpoints per account. */
export const MAX_ENDPOINTS = 16;

/**
 * An endpoint registered when the server starts, with a secret chosen by the caller. Stripe has no
 * way to choose a secret; the dev host uses this so the local server signs with the
 * STRIPE_WEBHOOK_SECRET already in local.settings.json (docs/payment.md, "Offline mode").
 */
export interface PresetEndpoint {
  url: string;
  secret: string;
  enabledEvents?: string[];
  description?: string;
}

interface Stored {
  endpoint: Stripe.WebhookEndpoint;
  secret: string;
}

const EVENT_TYPE = /^(\*|[a-z_]+(\.[a-z_]+)+)$/;
const API_VERSION = /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/;
const newSecret = () => `whsec_${randomBytes(48).toString('base64url').replace(/[-_]/g, '').slice(0, 32)}`;

function checkUrl(value: unknown): string {
  if (typeof value !== 'string' || !value) throw invalid('Missing required param: url.', 'url', 'parameter_missing');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`Invalid URL: ${value}`, 'url', 'url_invalid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`Invalid URL: ${value}. URLs must use http or https.`, 'url', 'url_invalid');
  return value;
}

function checkEvents(value: unknown): string[] {
  const events = Array.isArray(value) ? value : value === undefined ? undefined : [value];
  if (!events || !events.length) throw invalid('Missing required param: enabled_events.', 'enabled_events', 'parameter_missing');
  for (const event of events)
    if (typeof event !== 'string' || !EVENT_TYPE.test(event)) throw invalid(`Invalid enabled_events: ${String(event)} is not an event type.`, 'enabled_events');
  return [...new Set(events as string[])];
}

const metadataOf = (value: unknown): Record<string, string> => (value && typeof value === 'object' ? (value as Record<string, string>) : {});

export class WebhookEndpoints {
  /** In creation order; listing walks it backwards (newest first, as Stripe lists). */
  private readonly stored = new Map<string, Stored>();

  constructor(presets: PresetEndpoint[] = []) {
    for (const preset of presets) {
      this.add({ url: checkUrl(preset.url), enabled_events: checkEvents(preset.enabledEvents ?? ['*']), description: preset.description }, preset.secret);
    }
  }

  private add(params: Fields, secret: string): Stored {
    if (this.stored.size >= MAX_ENDPOINTS)
      throw invalid(`You have reached the maximum of ${MAX_ENDPOINTS} test webhook endpoints.`, undefined, 'webhook_endpoint_limit');
    const endpoint = {
      id: newId('we'),
      object: 'webhook_endpoint',
      api_version: (params.api_version as string | undefined) ?? null,
      application: null,
      created: nowSeconds(),
      description: (params.description as string | undefined) || null,
      enabled_events: params.enabled_events as string[],
      livemode: false,
      metadata: metadataOf(params.metadata),
      status: 'enabled',
      url: params.url as string,
    } as Stripe.WebhookEndpoint;
    const entry = { endpoint, secret };
    this.stored.set(endpoint.id, entry);
    return entry;
  }

  private get(id: string): Stored {
    const entry = this.stored.get(id);
    if (!entry) throw missing('webhook endpoint', id, 'webhook_endpoint');
    return entry;
  }

  create(params: Fields): Stripe.WebhookEndpoint {
    refuseUnknown(params, ['url', 'enabled_events', 'api_version', 'description', 'metadata', 'connect', 'expand']);
    if (params.connect === 'true') throw invalid('Connect webhook endpoints are not supported by the local Stripe server.', 'connect');
    if (params.api_version !== undefined && (typeof params.api_version !== 'string' || !API_VERSION.test(params.api_version))) {
      throw invalid(`Invalid Stripe API version: ${String(params.api_version)}`, 'api_version', 'api_version_invalid');
    }
    const entry = this.add({ ...params, url: checkUrl(params.url), enabled_events: checkEvents(params.enabled_events) }, newSecret());
    // The secret is in the answer to create only.
    return { ...structuredClone(entry.endpoint), secret: entry.secret };
  }

  list(params: Fields): Stripe.ApiList<Stripe.WebhookEndpoint> {
    refuseUnknown(params, listParams());
    const page = listOf(
      [...this.stored.values()].map((e) => e.endpoint),
      params,
      '/v1/webhook_endpoints',
      'webhook endpoint',
    );
    return structuredClone(page);
  }

  retrieve(id: string): Stripe.WebhookEndpoint {
    return structuredClone(this.get(id).endpoint);
  }

  update(id: string, params: Fields): Stripe.WebhookEndpoint {
    refuseUnknown(params, ['url', 'enabled_events', 'disabled', 'description', 'metadata', 'expand']);
    const { endpoint } = this.get(id);
    if (params.url !== undefined) endpoint.url = checkUrl(params.url);
    if (params.enabled_events !== undefined) endpoint.enabled_events = checkEvents(params.enabled_events);
    if (params.disabled !== undefined) {
      if (params.disabled !== 'true' && params.disabled !== 'false') throw invalid('Invalid boolean: ' + String(params.disabled), 'disabled');
      endpoint.status = params.disabled === 'true' ? 'disabled' : 'enabled';
    }
    if (params.description !== undefined) endpoint.description = (params.description as string) || null;
    // Stripe merges metadata; an empty value removes a key.
    if (params.metadata !== undefined) {
      const merged = { ...endpoint.metadata, ...metadataOf(params.metadata) };
      endpoint.metadata = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== ''));
    }
    return structuredClone(endpoint);
  }

  delete(id: string): Stripe.DeletedWebhookEndpoint {
    this.get(id);
    this.stored.delete(id);
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  /** The enabled endpoints an event of this type goes to, each with the secret it is signed with. */
  subscribers(type: string): { endpoint: Stripe.WebhookEndpoint; secret: string }[] {
    return [...this.stored.values()].filter(
      ({ endpoint }) => endpoint.status === 'enabled' && (endpoint.enabled_events.includes('*') || endpoint.enabled_events.includes(type)),
    );
  }
}

/** Routes /v1/webhook_endpoints requests; undefined for any other path. */
export function webhookEndpointRoute(store: WebhookEndpoints, method: string, path: string, params: Fields): { body: unknown } | undefined {
  if (path === '/v1/webhook_endpoints') {
    if (method === 'POST') return { body: store.create(params) };
    if (method === 'GET') return { body: store.list(params) };
  }
  const m = /^\/v1\/webhook_endpoints\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  const id = decodeURIComponent(m[1]);
  if (method === 'GET') {
    refuseUnknown(params, ['expand']);
    return { body: store.retrieve(id) };
  }
  if (method === 'POST') return { body: store.update(id, params) };
  if (method === 'DELETE') return { body: store.delete(id) };
  throw new StripeApiError(405, 'invalid_request_error', `${method} is not allowed on ${path}`);
}
