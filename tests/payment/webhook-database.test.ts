import { sql } from '../../shared/sql/dialect';
import { findPayment } from '../../functions/payment/payments';
import { startTestHost, withDatabaseClosed, type TestHost } from '../helpers/host';
import { expectError } from '../helpers/errors';
import { planInIdentity, signIn } from '../helpers/identity';
import { deliver, paymentIntentObject, paymentOn, stripeEvent } from './helpers';

/**
 * The webhook answers 500 only when our own database fails, so Stripe delivers the event again;
 * the failed delivery leaves nothing behind, so the redelivery is applied as the first. The fault
 * is real: the host's database connection is closed under it, then opened again.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

test('a closed database: 500 with no internals, nothing recorded; the redelivered event is then applied and syncs the plan', async () => {
  const user = await signIn(host, 'db-down@example.com');
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_db_down', { userId: user.user.id, planType: 'pro', amount: 2900 }));

  const failed = await withDatabaseClosed(host, () => deliver(host, event));
  expectError(failed, 500, 'INTERNAL');
  expect(JSON.stringify(failed.body)).not.toMatch(/destroyed|kysely|sqlite|at .*\.js/i);

  // The database is back; Stripe redelivers.
  expect(await findPayment(paymentOn(host).db, 'pi_db_down')).toBeUndefined();
  const redelivered = await deliver(host, event);
  expect(redelivered.status).toBe(200);
  expect(redelivered.body).toMatchObject({
    eventId: event.id,
    duplicate: false,
    action: 'applied',
    sync: { success: true, userId: user.user.id, plan: 'pro', paymentIntentId: 'pi_db_down' },
  });
  expect(await planInIdentity(host, user)).toBe('pro');
  // And a third delivery is the duplicate it should be.
  expect((await deliver(host, event)).body).toMatchObject({ duplicate: true, action: 'duplicate' });
});

test('a write that fails for another reason than a repeat is not taken for one: 500, nothing recorded, and the redelivery applied', async () => {
  const user = await signIn(host, 'insert-fails@example.com');
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_insert_fails', { userId: user.user.id, planType: 'pro', amount: 2900 }));
  // A real fault inside the transaction: SQLite refuses the event's row (a constraint error, as a
  // repeat's would be, but not a duplicate key), while the connection stays up.
  await sql`CREATE TRIGGER refuse_events BEFORE INSERT ON payment_webhook_events BEGIN SELECT RAISE(ABORT, 'disk is full'); END`.execute(paymentOn(host).db);
  try {
    expectError(await deliver(host, event), 500, 'INTERNAL');
  } finally {
    await sql`DROP TRIGGER refuse_events`.execute(paymentOn(host).db);
  }
  expect(await findPayment(paymentOn(host).db, 'pi_insert_fails')).toBeUndefined();

  expect((await deliver(host, event)).body).toMatchObject({ duplicate: false, action: 'applied', sync: { success: true, plan: 'pro' } });
  expect(await planInIdentity(host, user)).toBe('pro');
});
