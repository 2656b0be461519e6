/**
 * The per-minute timers leave SQL alone while the Table Storage marker says there is no work, so a
 * serverless database can pause (shared/sql/idle.ts). Shown with the real timers against the dev
 * host (SQLite, Azurite): work written to SQL behind the marker's back is not seen while it is idle
 * (SQL was not queried), and is seen once a writer marks the work, as the webhook and the report
 * route do before they write.
 */
import { InvocationContext, type Timer } from '@azure/functions';
import { syncRetryTimer } from '../../functions/payment';
import { PAYMENT_SYNC_WORK } from '../../functions/payment/backlog';
import { findPayment } from '../../functions/payment/payments';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { EXECUTIONS_WORK, markExecutionWork, sweepStuckExecutions } from '../../functions/orchestrator/workflow/stuck';
import { BUSY_GRACE_MS, IDLE_TRUST_MS, markSqlWork, sqlWorkState } from '../../shared/sql/idle';
import { startTestHost, type TestHost } from '../helpers/host';
import { planInIdentity, signIn } from '../helpers/identity';
import { insertPaidPayment } from '../payment/helpers';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { SERVICES: 'identity,payment,orchestrator' } });
});
afterAll(() => host.stop());

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
const runSyncTimer = () => syncRetryTimer.handler(timer, new InvocationContext({ invocationId: 'idle-test', functionName: syncRetryTimer.name }));

test('a marker goes idle only after a pass that found nothing, not within the grace after a busy mark, and an old idle mark is not trusted', async () => {
  const now = new Date();
  expect((await sqlWorkState('test-topic', now)).idle).toBe(false);
  await markSqlWork('test-topic', now);
  const busy = await sqlWorkState('test-topic', now);
  expect(await busy.markIdle({ n: 1 }, new Date(now.getTime() + BUSY_GRACE_MS - 1000))).toBe(false);
  expect(await busy.markIdle({ n: 1 }, new Date(now.getTime() + BUSY_GRACE_MS + 1000))).toBe(true);
  expect(await sqlWorkState('test-topic', new Date(now.getTime() + BUSY_GRACE_MS + 2000))).toMatchObject({ idle: true, data: { n: 1 } });
  expect((await sqlWorkState('test-topic', new Date(now.getTime() + BUSY_GRACE_MS + IDLE_TRUST_MS + 2000))).idle).toBe(false);
  // A writer that marks between the timer's read and its idle mark wins (ETag).
  const read = await sqlWorkState('test-topic', new Date(now.getTime() + IDLE_TRUST_MS * 2));
  await markSqlWork('test-topic', new Date(now.getTime() - BUSY_GRACE_MS * 2));
  expect(await read.markIdle({}, new Date(now.getTime() + IDLE_TRUST_MS * 2))).toBe(false);
  expect((await sqlWorkState('test-topic')).idle).toBe(false);
});

test('the plan-sync timer skips SQL while idle, and retries a due sync once the work is marked', async () => {
  const user = await signIn(host, 'idle-sync@example.com');
  await runSyncTimer(); // nothing owed, no busy mark yet: the marker goes idle
  expect((await sqlWorkState(PAYMENT_SYNC_WORK)).idle).toBe(true);

  // A paid payment whose plan identity has not received, written without marking the work.
  const past = new Date(Date.now() - 60_000).toISOString();
  await insertPaidPayment({ id: 'pi_idle_1', userId: user.user.id, at: past });
  await runSyncTimer();
  expect((await findPayment('pi_idle_1'))!.sync.state).toBe('pending');
  expect(await planInIdentity(host, user)).toBe('free');

  await markSqlWork(PAYMENT_SYNC_WORK);
  await runSyncTimer();
  expect((await findPayment('pi_idle_1'))!.sync.state).toBe('synced');
  expect(await planInIdentity(host, user)).toBe('pro');
  // Synced, but marked busy moments ago: it stays busy through the grace period.
  expect((await sqlWorkState(PAYMENT_SYNC_WORK)).idle).toBe(false);
});

test('the stuck-execution timer skips SQL while idle, and sweeps once an execution is marked', async () => {
  expect(await sweepStuckExecutions()).toEqual([]);
  expect((await sqlWorkState(EXECUTIONS_WORK)).idle).toBe(true);
  const row = { companyName: 'Acme', industryId: 'tech', submission: {}, requestedBy: 'u', plan: 'pro' as const, now: new Date().toISOString() };
  await insertExecution({ trackingId: 't-idle-unmarked', ...row });
  const later = new Date(Date.now() + 31 * 60_000);
  expect(await sweepStuckExecutions(later)).toEqual([]);

  await markExecutionWork();
  expect(await sweepStuckExecutions(later)).toEqual(['t-idle-unmarked']);
});
