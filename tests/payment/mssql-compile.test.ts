import { DEFAULT_PLANS } from '../../shared/plans';
import { describeWithTsql, expectValidTsql, recordAzureSql, usePaymentCompileSettings } from '../helpers/tsql';

/**
 * Every payment query compiled for Azure SQL and parsed as T-SQL. The driver records each compiled
 * query and answers one placeholder payment row, enough for the domain code to reach its next query.
 */
const placeholderRow = {
  id: 'pi_1',
  user_id: 'u1',
  plan_type: 'pro',
  amount: 2900,
  currency: 'usd',
  price_version: '2026-01',
  status: 'pending',
  status_at: null,
  failure_message: null,
  sync_state: 'pending',
  sync_plan: 'pro',
  sync_attempts: 1,
  sync_error: 'x',
  sync_next_at: new Date(),
  synced_at: null,
  created_at: new Date(),
  updated_at: new Date(),
};
const { statements: compiled, db } = recordAzureSql(placeholderRow);

// A payment-only app: only payment's required settings are needed (the grace period reads config).
usePaymentCompileSettings();
beforeEach(() => {
  compiled.length = 0;
});

const payments = () => require('../../functions/payment/payments');
const log = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return log;
  },
};
/** What the domain functions below reach, on the recording database (the grace period reads the settings). */
const ctx = () => ({ db, log, now: () => new Date(), config: require('../../shared/config').config(), plans: DEFAULT_PLANS });
const payment = { id: 'pi_1', userId: 'u1', planType: 'pro', statusAt: '2026-11-22T00:00:00.000Z', sync: { attempts: 1, error: 'x' } };

const queries: [string, string[], () => Promise<unknown>][] = [
  [
    'insert pending payment',
    ['insert'],
    () =>
      payments().insertPendingPayment(db, { id: 'pi_1', userId: 'u1', planType: 'pro', amount: 2900, currency: 'usd', priceVersion: '2026-01' }, new Date()),
  ],
  ['recent payments', ['select'], () => payments().recentPaymentsOf(db, 'u1', 10)],
  ['plan-deciding payment', ['select'], () => payments().planDecidingPayment(db, 'u1')],
  ['unsynced payments', ['select'], () => payments().unsyncedPayments(db, 100)],
  ['users with due syncs', ['select'], () => payments().usersWithDueSyncs(db, new Date(), 100)],
  ['mark synced and supersede', ['update', 'update'], () => payments().markSynced(db, payment, new Date())],
  ['mark failed', ['update'], () => payments().markSyncFailed(db, payment, { state: 'failed', attempts: 2, error: 'e', nextAt: new Date() }, new Date())],
  ['reopen for replay', ['update'], () => payments().reopenForReplay(db, ['pi_1', 'pi_2'], new Date())],
  ['counts by sync state', ['select'], () => payments().countsByState(db)],
  ['failed syncs only', ['select'], () => payments().unsyncedPayments(db, 100, payments().RETRIED_STATES)],
  [
    'an operator decides a payment in manual review',
    ['select', 'update', 'insert'],
    () =>
      require('../../functions/payment/review').rejectPayment(ctx(), { id: 'admin-1', email: 'ops@example.com' }, 'pi_1', 'amount does not match the plan', {
        requestId: 'req-1',
      }),
  ],
  ['recent review decisions', ['select'], () => require('../../functions/payment/review').recentDecisions(db, 20)],
  // The console's billing pages (billing-history.ts): the timeline's payments, subscriptions and customer; the accounts a page at a time.
  ['billing timeline of a user', ['select', 'select', 'select'], () => require('../../functions/payment/billing-history').billingTimeline(ctx(), 'u1')],
  ['accounts past due', ['select'], () => require('../../functions/payment/billing-history').accountsIn(ctx(), 'past_due', 10, 20)],
  [
    'accounts disputed, with their e-mails',
    ['select', 'select'],
    () => require('../../functions/payment/billing-history').accountsIn(ctx(), 'disputed', 10, 20),
  ],
  [
    'acquire and release lease',
    ['insert', 'delete'],
    async () => {
      await payments().acquireSyncLease(db, 'u1', 'h', new Date(), 1000);
      await payments().releaseSyncLease(db, 'u1', 'h');
    },
  ],
  ["the newest standing payment (a refund's plan)", ['select'], () => payments().planAfterRefund(db, 'u1')],
  ["a refund's plan recomputed at the push", ['update'], () => payments().setSyncPlan(db, 'pi_1', 'pro', new Date())],
  [
    // The event, its payment, the newest standing payment, the refund written on the payment.
    'record a refund',
    ['insert', 'select', 'select', 'update'],
    () =>
      require('../../functions/payment/webhook-events').recordEvent(ctx(), {
        id: 'evt_2',
        type: 'charge.refunded',
        created: 1795000000,
        data: { object: { id: 'ch_1', amount: 2900, amount_refunded: 2900, refunded: true, payment_intent: 'pi_1' } },
      }),
  ],
  [
    // The event, its payment, the newest standing payment before and after the dispute is written, then the plan's suspension.
    'record a dispute',
    ['insert', 'select', 'select', 'update', 'select', 'select', 'update', 'select'],
    () =>
      require('../../functions/payment/webhook-events').recordEvent(ctx(), {
        id: 'evt_3',
        type: 'charge.dispute.created',
        created: 1795000000,
        data: { object: { id: 'dp_1', charge: 'ch_1', payment_intent: 'pi_1', status: 'needs_response', reason: 'fraudulent' } },
      }),
  ],
  [
    // The last select: whether a refund that decided the plan is newer than this success (webhook-events.ts, reconciled).
    'record a webhook event',
    ['insert', 'select', 'update', 'select'],
    () =>
      require('../../functions/payment/webhook-events').recordEvent(ctx(), {
        id: 'evt_1',
        type: 'payment_intent.succeeded',
        created: 1795000000,
        data: { object: { id: 'pi_1', amount: 2900, currency: 'usd', metadata: { userId: 'u1', planType: 'pro' } } },
      }),
  ],
];

describeWithTsql('payment statements for Azure SQL', (tsql) => {
  test.each(queries)('%s: every statement is valid T-SQL (ScriptDom), of the kinds expected', async (_name, kinds, run) => {
    await run();
    await expectValidTsql(tsql(), compiled, kinds);
  });
});
