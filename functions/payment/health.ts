import { serviceUrl, type Config } from '../../shared/config';
import { httpProbe } from '../../shared/http/probe';
import { check, checkSql, healthFunction, optional, type HealthChecks } from '../../shared/health';
import { paymentContext, type PaymentNeeds } from './context';
import { missingKeyProblem, stripeApiBase, stripeMode } from './stripe-client';
import { webhookSecretProblem } from './webhook-secret';

/** Table Storage: the failed-sync table answers a query (one request, no SDK: a cold start's health loads none). */
const checkTableStorage = (ctx: PaymentNeeds<'storage' | 'config'>) => check(() => ctx.storage.probeTable(ctx.config.PAYMENT_FAILED_SYNC_TABLE));

/**
 * Identity: its health route answers 200 within the deadline (plan syncs would fail otherwise).
 * A probe that skips SQL asks identity to skip its own (identity's health is a `select 1`).
 */
const checkIdentity = (cfg: Config, skipSql: boolean) =>
  check(async () => {
    const url = `${serviceUrl('identity', cfg)}/health${skipSql ? '?skip=sql' : ''}`;
    // Node's http client, not fetch: a probe compiles no fetch parser (shared/http/probe.ts), and
    // loads no HTTP client (the plan pushes' pooled one loads with the first push).
    const response = await httpProbe(url, { timeoutMs: 2500 });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    return url;
  });

/**
 * Stripe: the mode is configured and consistent (a real webhook signing secret, not the placeholder
 * a deployment starts with; in offline mode the local server answers). The real API is not called
 * on every probe: configuration is what can be wrong.
 */
const checkStripe = ({ config, platform }: PaymentNeeds<'config' | 'platform'>) =>
  check(async () => {
    const mode = stripeMode(config);
    if (mode.mode === 'unconfigured') throw new Error(missingKeyProblem(platform.settings.STRIPE_SECRET_KEY));
    const secretProblem = webhookSecretProblem(config.STRIPE_WEBHOOK_SECRET);
    if (secretProblem) throw new Error(secretProblem);
    if (mode.mode === 'stripe') return `Stripe API (${config.STRIPE_SECRET_KEY!.includes('_live_') ? 'live' : 'test'} mode)`;
    const base = stripeApiBase(platform);
    if (!base) throw new Error('offline mode but no local Stripe API server is running');
    const response = await fetch(`${base}/v1/payment_intents/pi_health_probe`, {
      headers: { Authorization: 'Bearer sk_test_health' },
      signal: AbortSignal.timeout(2500),
    });
    await response.body?.cancel();
    if (response.status !== 404) throw new Error(`local Stripe API server at ${base} answered ${response.status}`);
    return `offline: local Stripe API server ${base}`;
  });

/**
 * payment's health checks, given the context of the probe and what it skips. Stripe is optional:
 * without a key (a first `azd up`) plans, user status and the webhook answer, creating a payment
 * intent answers 503 STRIPE_NOT_CONFIGURED, and health says `degraded` and why.
 */
export const paymentChecks = (ctx: PaymentNeeds<'db' | 'storage' | 'config' | 'platform'>, skip: readonly string[]): HealthChecks => ({
  sql: () => checkSql(ctx),
  tableStorage: () => checkTableStorage(ctx),
  identity: () => checkIdentity(ctx.config, skip.includes('sql')),
  stripe: optional(() => checkStripe(ctx)),
});

/** `GET payment/health`, loadable alone: a cold instance's first health call loads this module, not the service's routes (functions/registry.ts). */
export const HEALTH = healthFunction('payment', paymentContext, paymentChecks);
