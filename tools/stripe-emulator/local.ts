import fs from 'node:fs';
import { serviceUrl } from '../../shared/config';
import { createLogger } from '../../shared/logging';
import { currentPlatform } from '../../shared/platform';
import { HANDLED_EVENT_TYPES } from '../../functions/payment/event-types';
import { appConfig } from '../../functions/settings';
import { emulatorAddressFile, stripeMode, useEmulator } from '../../functions/payment/stripe-client';
import { startStripeEmulator } from './server';

export interface LocalStripe {
  url: string;
  webhookUrl: string;
  stop(): Promise<void>;
}

/**
 * The local Stripe API server of a laptop run (offline mode: no real STRIPE_SECRET_KEY and no
 * STRIPE_API_BASE), started by the dev host before the services, or by `npm run stripe:local` for
 * `func start`. It starts with one webhook endpoint already registered: the payment webhook of this
 * host, subscribed to the events the webhook handles and signed with STRIPE_WEBHOOK_SECRET from
 * local.settings.json, as if `npm run stripe:webhook` had been run and its secret stored there. So
 * `npm start` then `npm run demo` work with nothing to set up. Its address goes to
 * <DATA_DIR>/stripe-emulator.json, where the payment service and the CLIs find it.
 *
 * Returns undefined when payment does not run offline (a real key, or STRIPE_API_BASE given).
 */
export async function startLocalStripe(options: { webhookUrl?: string } = {}): Promise<LocalStripe | undefined> {
  const platform = currentPlatform();
  const cfg = appConfig(platform);
  const mode = stripeMode(cfg);
  if (mode.mode !== 'offline' || mode.apiBase) return undefined;
  const webhookUrl = options.webhookUrl ?? `${serviceUrl('payment', cfg)}/webhook`;
  const emulator = await startStripeEmulator({
    port: cfg.STRIPE_EMULATOR_PORT,
    endpoints: [
      { url: webhookUrl, secret: cfg.STRIPE_WEBHOOK_SECRET, enabledEvents: [...HANDLED_EVENT_TYPES], description: 'payment webhook of the local host' },
    ],
    log: createLogger({ component: 'stripe-emulator' }),
  });
  const addressFile = emulatorAddressFile(cfg);
  useEmulator(platform, emulator.url);
  fs.mkdirSync(cfg.DATA_DIR, { recursive: true });
  fs.writeFileSync(addressFile, JSON.stringify({ url: emulator.url, webhookUrl, pid: process.pid }) + '\n');
  return {
    url: emulator.url,
    webhookUrl,
    async stop() {
      useEmulator(platform, undefined);
      fs.rmSync(addressFile, { force: true });
      await emulator.stop();
    },
  };
}
