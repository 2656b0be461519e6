/**
 * `npm run stripe:local [-- --webhook <url>]`: the local Stripe API server on its own, for
 * `func start` (the dev host of `npm start` starts one itself). It reads local.settings.json like
 * the dev host, registers the payment webhook (default <PUBLIC_URL or http://HOST:PORT>/payment/webhook)
 * signed with STRIPE_WEBHOOK_SECRET, and writes its address to <DATA_DIR>/stripe-emulator.json,
 * where the payment service finds it. Runs until Ctrl-C.
 */
import { parseArgs } from 'node:util';
import { loadLocalEnv } from '../cli/local-env';
import { startLocalStripe } from './local';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { webhook: { type: 'string' } } });
  loadLocalEnv(['payment']);
  const local = await startLocalStripe({ webhookUrl: values.webhook });
  if (!local) {
    process.stderr.write('payment is not in offline mode (a real STRIPE_SECRET_KEY or STRIPE_API_BASE is set): no local Stripe server needed\n');
    process.exitCode = 2;
    return;
  }
  process.stdout.write(
    `local Stripe API server ${local.url}\n  webhook endpoint ${local.webhookUrl} (signed with STRIPE_WEBHOOK_SECRET)\nPress Ctrl-C to stop.\n`,
  );
  const stop = () => void local.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
});
