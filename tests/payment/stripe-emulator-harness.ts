import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { createLogger } from '../../shared/logging';
import { startStripeEmulator, type StripeEmulator, type StripeEmulatorOptions } from '../../tools/stripe-emulator/server';

/**
 * The local Stripe server with a webhook receiver subscribed to every event, driven by the official
 * client as the payment service drives Stripe. `events()` answers what was delivered, each verified
 * with `stripe.webhooks.constructEvent` and the endpoint's secret, in delivery order.
 */
export const SECRET = 'whsec_emulator_billing_secret_0123456789';

export interface Harness {
  emulator: StripeEmulator;
  stripe: Stripe;
  /** The deliveries so far, verified; `clear()` forgets them. */
  events(): Stripe.Event[];
  types(): string[];
  clear(): void;
  stop(): Promise<void>;
}

export async function startHarness(options: Partial<StripeEmulatorOptions> = {}): Promise<Harness> {
  const received: { body: string; signature: string }[] = [];
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ body: Buffer.concat(chunks).toString(), signature: String(req.headers['stripe-signature']) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  }
  const receiver = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/payment/webhook`;
  const emulator = await startStripeEmulator({ endpoints: [{ url: hook, secret: SECRET }], log: createLogger({ test: 'emulator' }), ...options });
  const url = new URL(emulator.url);
  const stripe = new Stripe('sk_test_emulator_billing', { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
  const events = () => received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, SECRET, 300));
  return {
    emulator,
    stripe,
    events,
    types: () => events().map((e) => e.type),
    clear: () => void (received.length = 0),
    async stop() {
      await emulator.stop();
      await new Promise<void>((r) => receiver.close(() => r()));
    },
  };
}

/** The catalog the platform sells: Pro and Enterprise, monthly and yearly, found by lookup key. */
export async function catalog(stripe: Stripe) {
  const pro = await stripe.products.create({ name: 'Pro', metadata: { planType: 'pro' } });
  const enterprise = await stripe.products.create({ name: 'Enterprise', metadata: { planType: 'enterprise' } });
  const price = (product: string, amount: number, interval: 'month' | 'year', key: string) =>
    stripe.prices.create({ product, currency: 'usd', unit_amount: amount, recurring: { interval }, lookup_key: key });
  return {
    proMonthly: await price(pro.id, 2900, 'month', 'pro_monthly'),
    proYearly: await price(pro.id, 29000, 'year', 'pro_yearly'),
    enterpriseMonthly: await price(enterprise.id, 9900, 'month', 'enterprise_monthly'),
  };
}

/** A harness with the catalog made: what each emulator test file starts once (and stops after, clearing it before each test). */
export async function startWithCatalog(): Promise<{ h: Harness; stripe: Stripe; prices: Awaited<ReturnType<typeof catalog>> }> {
  const h = await startHarness();
  return { h, stripe: h.stripe, prices: await catalog(h.stripe) };
}

/** Noon UTC of a day, in Unix seconds: where the tests freeze a test clock. */
export const at = (year: number, month: number, day: number) => Date.UTC(year, month - 1, day, 12) / 1000;

/** Subscribes the customer as the platform does for its card form: the first invoice left for the client to confirm. */
export const subscribe = (stripe: Stripe, customer: string, price: string) =>
  stripe.subscriptions.create({
    customer,
    items: [{ price }],
    payment_behavior: 'default_incomplete',
    payment_settings: { save_default_payment_method: 'on_subscription' },
    expand: ['latest_invoice.confirmation_secret', 'latest_invoice.payments'],
    metadata: { userId: 'u1' },
  });

/** The PaymentIntent a client confirms, from the first invoice's client secret (`<pi id>_secret_...`). */
export const intentOf = (sub: Stripe.Subscription) => {
  const secret = (sub.latest_invoice as Stripe.Invoice).confirmation_secret!.client_secret;
  return secret.slice(0, secret.indexOf('_secret_'));
};
