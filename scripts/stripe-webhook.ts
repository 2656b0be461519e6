/**
 * npm run stripe:webhook -- --url <payment URL>/webhook [--rotate | --finish-rotation] [--vault <uri>] [--if-key-available] [--no-refresh]
 *
 * Subscribes the payment service to Stripe, idempotently, with the official client:
 * - finds our webhook endpoint by URL; creates it when missing, subscribed to exactly the event
 *   types the webhook handles (functions/payment/event-types.ts) with the pinned API version, and
 *   stores its signing secret in Key Vault as stripe-webhook-secret (tagged with the endpoint id);
 * - brings an existing endpoint's enabled events back to that list (and re-enables it);
 * - replaces an endpoint whose secret Key Vault does not hold (the placeholder is still there, or a
 *   run died between creating it and storing its secret): Stripe shows a secret only at creation;
 * - a second run with nothing to change changes nothing and says so.
 * --rotate: Stripe's API cannot roll an endpoint's secret (the Dashboard's "Roll secret" does it by
 *   hand), so the overlap is made with a second endpoint for the same URL: both deliver every event
 *   (the webhook deduplicates by event id), Key Vault gets the new secret, and whichever secret the
 *   payment app runs with verifies one of the two deliveries. Once payment reads the new
 *   secret, --finish-rotation deletes the previous endpoint. It also moves the endpoint to the pinned API
 *   version, which Stripe cannot change on an existing endpoint.
 * --if-key-available: the postprovision hook's mode: without a Stripe key, say so and do nothing.
 * Storing a secret grants its readers (the payment app's identity) Key Vault Secrets User on it
 * (scripts/secret-readers.ts, from the azd environment's KEY_VAULT_READERS).
 * After storing a secret in Key Vault, the command makes the payment app read it: it refreshes the
 * app's Key Vault references and waits until they resolve (`npm run secrets -- --refresh` for the
 * payment app; a restart does not promise a fresh read). It needs the azd environment in the shell
 * (`eval "$(azd env get-values)"`); --no-refresh leaves that to a later `npm run secrets -- --refresh`.
 *
 * The Stripe secret key comes from STRIPE_SECRET_KEY or the stripe-secret-key Key Vault secret,
 * never from the command line. STRIPE_API_BASE points the client at another server (the local
 * Stripe server in tests). Secrets are never printed.
 */
import { parseArgs } from 'node:util';
import Stripe from 'stripe';
import { HANDLED_EVENT_TYPES, stripeApiVersion } from '../functions/payment/event-types';
import { refreshFromEnv, refreshInputs } from './key-vault-references';
import { KeyVaultSecrets, SECRET } from './secrets';
import { secretReaderGrantsFromEnv } from './secret-readers';

/** metadata.managed_by of the endpoints this command creates. */
export const MANAGED_BY = 'report-platform';
const DESCRIPTION = 'report-platform payment webhook (npm run stripe:webhook)';

export interface WebhookCommandOptions {
  url: string;
  rotate?: boolean;
  finishRotation?: boolean;
}

export interface WebhookCommandResult {
  /** Whether anything changed at Stripe or in Key Vault. */
  changed: boolean;
  /** Whether a new signing secret was stored in Key Vault (the payment app must then read it: its references are refreshed). */
  secretStored: boolean;
  /** The endpoint whose secret Key Vault now holds. */
  endpointId?: string;
  /** What was done, one line per action, for people (no secret ever). */
  lines: string[];
}

type Endpoint = Stripe.WebhookEndpoint;

const sameEvents = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().every((e, i) => e === [...b].sort()[i]);

export function stripeClient(secretKey: string, apiBase = process.env.STRIPE_API_BASE): Stripe {
  const base = apiBase ? new URL(apiBase) : undefined;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    apiVersion: stripeApiVersion() as Stripe.LatestApiVersion,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'report-platform-stripe-webhook' },
    ...(base ? { host: base.hostname, port: Number(base.port) || (protocol === 'http' ? 80 : 443), protocol } : {}),
  });
}

/** Every endpoint of the account for this exact URL, oldest first. */
async function endpointsFor(stripe: Stripe, url: string): Promise<Endpoint[]> {
  const found: Endpoint[] = [];
  for await (const endpoint of stripe.webhookEndpoints.list({ limit: 100 })) if (endpoint.url === url) found.push(endpoint);
  return found.sort((a, b) => a.created - b.created);
}

/** Creates our endpoint (the client's retries carry an idempotency key, so a lost answer does not create two). */
async function createEndpoint(stripe: Stripe, url: string): Promise<Endpoint & { secret: string }> {
  const created = await stripe.webhookEndpoints.create({
    url,
    enabled_events: [...HANDLED_EVENT_TYPES],
    api_version: stripeApiVersion() as Stripe.WebhookEndpointCreateParams.ApiVersion,
    description: DESCRIPTION,
    metadata: { managed_by: MANAGED_BY },
  });
  if (!created.secret) throw new Error(`Stripe created webhook endpoint ${created.id} but returned no signing secret`);
  return created as Endpoint & { secret: string };
}

async function deleteEndpoint(stripe: Stripe, id: string): Promise<boolean> {
  try {
    await stripe.webhookEndpoints.del(id);
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

function storeSecret(vault: KeyVaultSecrets, secret: string, endpoint: Endpoint, previous?: string): Promise<void> {
  return vault.set(SECRET.stripeWebhookSecret, secret, {
    'set-by': 'npm run stripe:webhook',
    endpoint: endpoint.id,
    ...(previous ? { 'previous-endpoint': previous } : {}),
  });
}

const refreshLine =
  'The payment app reads the new secret once its Key Vault references are refreshed: npm run stripe:webhook does it next (by hand: npm run secrets -- --refresh).';

/** The command's work; `lines` says what it did. */
export async function runWebhookCommand(stripe: Stripe, vault: KeyVaultSecrets, options: WebhookCommandOptions): Promise<WebhookCommandResult> {
  const { url } = options;
  const lines: string[] = [];
  const stored = await vault.read(SECRET.stripeWebhookSecret);
  const heldId = stored && stored.tags.placeholder !== 'true' ? stored.tags.endpoint : undefined;
  const previousId = stored?.tags['previous-endpoint'];
  const endpoints = await endpointsFor(stripe, url);

  if (options.finishRotation) {
    if (!previousId) return { changed: false, secretStored: false, endpointId: heldId, lines: [`No rotation in progress for ${url}: nothing to finish.`] };
    const deleted = await deleteEndpoint(stripe, previousId);
    await storeSecret(vault, stored!.value, { id: heldId! } as Endpoint);
    lines.push(
      deleted
        ? `Deleted the previous webhook endpoint ${previousId}; only ${heldId} delivers now.`
        : `The previous webhook endpoint ${previousId} was already gone; only ${heldId} delivers now.`,
    );
    return { changed: true, secretStored: false, endpointId: heldId, lines };
  }

  if (options.rotate) {
    if (previousId)
      throw new Error(
        `A rotation is in progress (new endpoint ${heldId}, previous ${previousId}): once the payment app reads the new secret (npm run secrets -- --refresh), finish it with --finish-rotation before rotating again.`,
      );
    const handStored = stored && stored.tags.placeholder !== 'true' && !stored.tags.endpoint;
    const current = endpoints.find((e) => e.id === heldId) ?? (handStored ? endpoints[0] : undefined);
    if (!current) throw new Error(`Key Vault holds no secret of a webhook endpoint for ${url}: run without --rotate first.`);
    const next = await createEndpoint(stripe, url);
    await storeSecret(vault, next.secret, next, current.id);
    lines.push(
      `Created webhook endpoint ${next.id} for ${url} (API version ${stripeApiVersion()}) beside ${current.id}; both deliver every event until the rotation finishes (the webhook ignores the repeat of an event it has recorded).`,
      `Stored its signing secret in Key Vault as ${SECRET.stripeWebhookSecret} (the previous one is replaced).`,
      refreshLine,
      'Then finish the rotation (deletes the previous endpoint): npm run stripe:webhook -- --url ' + url + ' --finish-rotation',
    );
    return { changed: true, secretStored: true, endpointId: next.id, lines };
  }

  // Normal run: the endpoint whose secret Key Vault holds, else the first one for this URL.
  let endpoint = endpoints.find((e) => e.id === heldId);
  let changed = false;
  const secretHeld = Boolean(endpoint) || Boolean(stored && stored.tags.placeholder !== 'true' && !stored.tags.endpoint && endpoints.length);

  if (!endpoint && !secretHeld) {
    // Key Vault holds no secret of any endpoint for this URL: create one and store its secret; an
    // endpoint whose secret we lack can never be verified, so it is deleted once the new one exists.
    const created = await createEndpoint(stripe, url);
    await storeSecret(vault, created.secret, created);
    changed = true;
    lines.push(`Created webhook endpoint ${created.id} for ${url}: events ${HANDLED_EVENT_TYPES.join(', ')}; API version ${stripeApiVersion()}.`);
    lines.push(
      `Stored its signing secret in Key Vault as ${SECRET.stripeWebhookSecret}${stored?.tags.placeholder === 'true' ? ' (it replaces the placeholder that refused every webhook)' : ''}.`,
    );
    for (const orphan of endpoints) {
      await deleteEndpoint(stripe, orphan.id);
      lines.push(
        `Deleted webhook endpoint ${orphan.id} for the same URL: its signing secret is not in Key Vault (Stripe shows a secret only when it creates an endpoint), so its deliveries could never be verified.`,
      );
    }
    lines.push(refreshLine);
    return { changed, secretStored: true, endpointId: created.id, lines };
  }

  if (!endpoint) {
    // A secret stored by hand (from the Dashboard): kept, since it cannot be checked against Stripe.
    endpoint = endpoints[0];
    lines.push(
      `Key Vault holds a signing secret stored by hand; it is kept for endpoint ${endpoint.id} (Stripe cannot show it again to compare). If deliveries answer 400, run with --rotate.`,
    );
  }

  const update: Stripe.WebhookEndpointUpdateParams = {};
  if (!sameEvents(endpoint.enabled_events, HANDLED_EVENT_TYPES)) {
    const added = HANDLED_EVENT_TYPES.filter((e) => !endpoint!.enabled_events.includes(e));
    const removed = endpoint.enabled_events.filter((e) => !(HANDLED_EVENT_TYPES as readonly string[]).includes(e));
    update.enabled_events = [...HANDLED_EVENT_TYPES];
    lines.push(
      `Updated the enabled events of ${endpoint.id}${added.length ? `; added ${added.join(', ')}` : ''}${removed.length ? `; removed ${removed.join(', ')}` : ''}.`,
    );
  }
  if (endpoint.status !== 'enabled') {
    update.disabled = false;
    lines.push(`Enabled ${endpoint.id} again (it was ${endpoint.status}).`);
  }
  if (Object.keys(update).length) {
    endpoint = await stripe.webhookEndpoints.update(endpoint.id, update);
    changed = true;
  }
  for (const extra of endpoints.filter((e) => e.id !== endpoint!.id && e.id !== previousId)) {
    if (extra.metadata?.managed_by === MANAGED_BY) {
      await deleteEndpoint(stripe, extra.id);
      changed = true;
      lines.push(`Deleted webhook endpoint ${extra.id}: an earlier run created it for the same URL but its secret is not in Key Vault.`);
    } else {
      lines.push(
        `Note: webhook endpoint ${extra.id} (not created by this command) also delivers to ${url}; delete it in the Dashboard if it is not yours on purpose.`,
      );
    }
  }
  if (endpoint.api_version && endpoint.api_version !== stripeApiVersion()) {
    lines.push(
      `Note: ${endpoint.id} renders events in API version ${endpoint.api_version}, not the pinned ${stripeApiVersion()}; Stripe cannot change it on an existing endpoint: run with --rotate to move to a new one.`,
    );
  }
  if (previousId)
    lines.push(`A rotation is in progress (previous endpoint ${previousId}): once the payment app runs with the new secret, run with --finish-rotation.`);
  if (!changed) {
    lines.unshift(
      `Nothing to change: webhook endpoint ${endpoint.id} for ${url} is enabled with ${HANDLED_EVENT_TYPES.length} events (${HANDLED_EVENT_TYPES.join(', ')}), and Key Vault holds its signing secret.`,
    );
  }
  return { changed, secretStored: false, endpointId: endpoint.id, lines };
}

function checkUrl(value: string | undefined, local: boolean): string {
  if (!value) throw new Error('give the payment webhook URL: --url https://<payment host>/payment/webhook (azd env get-values: PAYMENT_URL + /webhook)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--url ${value} is not a URL`);
  }
  if (url.protocol !== 'https:' && !local) throw new Error(`--url ${value}: Stripe delivers live events to https URLs only`);
  if (!url.pathname.endsWith('/webhook')) throw new Error(`--url ${value}: the payment webhook path ends with /webhook ({payment_url}/webhook)`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      rotate: { type: 'boolean' },
      'finish-rotation': { type: 'boolean' },
      vault: { type: 'string' },
      'if-key-available': { type: 'boolean' },
      'no-refresh': { type: 'boolean' },
    },
  });
  if (values.rotate && values['finish-rotation'])
    throw new Error('--rotate and --finish-rotation are two steps: run one (payment then reads the new secret), then the other');
  const refresh = !values['no-refresh'];
  const missing = refreshInputs([['payment']]).filter((name) => !process.env[name]?.trim());
  // Checked before anything changes: a stored secret the payment app never reads refuses every webhook.
  if (refresh && missing.length)
    throw new Error(
      `missing ${missing.join(', ')} (to refresh the payment app's Key Vault references): run eval "$(azd env get-values)" first, or pass --no-refresh`,
    );
  const url = checkUrl(values.url, Boolean(process.env.STRIPE_API_BASE));
  const vaultUri = values.vault ?? process.env.AZURE_KEY_VAULT_ENDPOINT;
  if (!vaultUri) throw new Error('give --vault <uri> or set AZURE_KEY_VAULT_ENDPOINT (azd sets it after provisioning)');
  const { DefaultAzureCredential } = await import('@azure/identity');
  const credential = new DefaultAzureCredential();
  // The secret it stores is granted to its readers (the payment app) right after it is written.
  const vault = new KeyVaultSecrets(vaultUri, credential, { readers: secretReaderGrantsFromEnv(process.env, credential) });
  const key = process.env.STRIPE_SECRET_KEY?.trim() || (await vault.get(SECRET.stripeSecretKey))?.trim();
  if (!key) {
    const message = `No Stripe secret key (STRIPE_SECRET_KEY, or the ${SECRET.stripeSecretKey} Key Vault secret)`;
    if (values['if-key-available']) {
      process.stdout.write(`Stripe webhook: skipped. ${message}; store it and run npm run stripe:webhook -- --url ${url} (docs/deploy.md).\n`);
      return;
    }
    throw new Error(message);
  }
  const result = await runWebhookCommand(stripeClient(key), vault, { url, rotate: values.rotate, finishRotation: values['finish-rotation'] });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const line of result.lines) out(line);
  if (result.secretStored && refresh)
    await refreshFromEnv(process.env, { credential, out, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }, [['payment']]);
  else if (result.secretStored) out('Not refreshed (--no-refresh): run npm run secrets -- --refresh before Stripe delivers, or payment refuses every event.');
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`stripe:webhook failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
