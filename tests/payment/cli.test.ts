import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn } from '../helpers/identity';

/** The dev commands as a developer runs them, in their own processes, against a running dev host. */
const run = promisify(execFile);
const cli = (name: string) => path.resolve(__dirname, '..', '..', 'tools', 'cli', `${name}.js`);
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

const command = (name: string, args: string[]) =>
  run(process.execPath, [cli(name), ...args], {
    cwd: host.dir,
    env: { ...process.env, DATA_DIR: host.dataDir, IDENTITY_URL: host.serviceUrls.identity, LOG_LEVEL: 'error' },
  });

test('stripe:trigger confirms an intent on the local Stripe, which delivers the signed event; payments:replay finds nothing left', async () => {
  const user = await signIn(host, 'cli@example.com');
  const created = await host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify({ amount: 2900, planType: 'pro', userId: user.user.id }),
  });
  const { paymentIntentId } = (await created.json()) as any;

  const trigger = await command('stripe-trigger', [paymentIntentId]);
  expect(trigger.stdout).toContain(`payment_intent ${paymentIntentId}: succeeded`);
  expect(trigger.stdout).toMatch(/webhook: payment_intent\.succeeded evt_\S+ -> 200 .*"sync":\{"success":true/);
  expect(await planInIdentity(host, user)).toBe('pro');

  const replay = await command('payments-replay', []);
  expect(replay.stdout).toContain('Every payment is synced with identity.');

  const refund = await command('stripe-trigger', [paymentIntentId, '--refund']);
  expect(refund.stdout).toMatch(/webhook: charge\.refunded evt_\S+ -> 200 .*"plan":"free"/);
});

test('stripe:trigger without a payment intent id prints its usage and exits 2', async () => {
  const error = await command('stripe-trigger', []).catch((e) => e);
  expect(error.code).toBe(2);
  expect(error.stderr).toContain('usage: npm run stripe:trigger -- <paymentIntentId>');
});

test('a command run where there is no local.settings.json reads the environment and never creates the file', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-no-settings-'));
  try {
    const settings = JSON.parse(fs.readFileSync(path.join(host.dir, 'local.settings.json'), 'utf8')).Values as Record<string, string>;
    const replay = await run(process.execPath, [cli('payments-replay'), '--apply'], {
      cwd: empty,
      env: { ...process.env, ...settings, DATA_DIR: host.dataDir, IDENTITY_URL: host.serviceUrls.identity, LOG_LEVEL: 'error' },
    });
    expect(replay.stdout).toContain('Every payment is synced with identity.');
    expect(fs.existsSync(path.join(empty, 'local.settings.json'))).toBe(false);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
