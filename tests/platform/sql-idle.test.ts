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
import { orchestratorContext } from '../../functions/orchestrator/context';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { EXECUTIONS_WORK, markExecutionWork, sweepStuckExecutions } from '../../functions/orchestrator/workflow/stuck';
import { BUSY_GRACE_MS, IDLE_TRUST_MS, MARK_REUSE_MS, SQL_WORK_TABLE, markSqlWork, sqlWorkState } from '../../shared/sql/idle';
import { table } from '../../shared/storage';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { planInIdentity, signIn } from '../helpers/identity';
import { insertPaidPayment, paymentOn } from '../payment/helpers';

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

/** The instant the topic's marker was last written busy or idle, as Table Storage holds it. */
const markedAt = async (topic: string) => (await (await table(SQL_WORK_TABLE)).getEntity<{ at: string; state: string }>('timers', topic)).at;

test('an instance marks a topic busy once a minute, not once per write, and at its next write once the marker went idle', async () => {
  const t0 = Date.now();
  const at = (ms: number) => new Date(t0 + ms);
  await markSqlWork('reuse-topic', at(0));
  expect(await markedAt('reuse-topic')).toBe(at(0).toISOString());
  // Writes within MARK_REUSE_MS of this instance's mark stand on it: Table Storage is not written.
  await markSqlWork('reuse-topic', at(MARK_REUSE_MS - 1));
  expect(await markedAt('reuse-topic')).toBe(at(0).toISOString());
  // The first write past it marks again.
  await markSqlWork('reuse-topic', at(MARK_REUSE_MS));
  expect(await markedAt('reuse-topic')).toBe(at(MARK_REUSE_MS).toISOString());
  // The timer marks the topic idle after the grace; this instance's next write marks it busy at once.
  const read = await sqlWorkState('reuse-topic', at(MARK_REUSE_MS + BUSY_GRACE_MS));
  expect(await read.markIdle({}, at(MARK_REUSE_MS + BUSY_GRACE_MS))).toBe(true);
  await markSqlWork('reuse-topic', at(MARK_REUSE_MS + BUSY_GRACE_MS + 1));
  expect(await sqlWorkState('reuse-topic', at(MARK_REUSE_MS + BUSY_GRACE_MS + 2))).toMatchObject({ idle: false });
  expect(await markedAt('reuse-topic')).toBe(at(MARK_REUSE_MS + BUSY_GRACE_MS + 1).toISOString());
  // A marker this instance's timer found missing and marked idle within the window (the entity lost): the next write marks.
  await markSqlWork('lost-topic', at(0));
  await (await table(SQL_WORK_TABLE)).deleteEntity('timers', 'lost-topic');
  expect(await (await sqlWorkState('lost-topic', at(1000))).markIdle({}, at(1000))).toBe(true);
  await markSqlWork('lost-topic', at(2000));
  expect(await markedAt('lost-topic')).toBe(at(2000).toISOString());
  // The window is far shorter than the grace: a write standing on a mark has committed before the timer may call it idle.
  expect(BUSY_GRACE_MS - MARK_REUSE_MS).toBeGreaterThanOrEqual(4 * 60_000);
});

test('the plan-sync timer skips SQL while idle, and retries a due sync once the work is marked', async () => {
  const user = await signIn(host, 'idle-sync@example.com');
  await runSyncTimer(); // nothing owed, no busy mark yet: the marker goes idle
  expect((await sqlWorkState(PAYMENT_SYNC_WORK)).idle).toBe(true);

  // A paid payment whose plan identity has not received, written without marking the work.
  const past = new Date(Date.now() - 60_000).toISOString();
  await insertPaidPayment(host, { id: 'pi_idle_1', userId: user.user.id, at: past });
  await runSyncTimer();
  expect((await findPayment(paymentOn(host).db, 'pi_idle_1'))!.sync.state).toBe('pending');
  expect(await planInIdentity(host, user)).toBe('free');

  await markSqlWork(PAYMENT_SYNC_WORK);
  await runSyncTimer();
  expect((await findPayment(paymentOn(host).db, 'pi_idle_1'))!.sync.state).toBe('synced');
  expect(await planInIdentity(host, user)).toBe('pro');
  // Synced, but marked busy moments ago: it stays busy through the grace period.
  expect((await sqlWorkState(PAYMENT_SYNC_WORK)).idle).toBe(false);
});

test('the stuck-execution timer skips SQL while idle, and sweeps once an execution is marked', async () => {
  const ctx = contextOf(orchestratorContext, host);
  expect(await sweepStuckExecutions(ctx)).toEqual([]);
  expect((await sqlWorkState(EXECUTIONS_WORK)).idle).toBe(true);
  const row = { companyName: 'Acme', industryId: 'tech', submission: {}, requestedBy: 'u', plan: 'pro' as const, now: new Date().toISOString() };
  await insertExecution(ctx, { trackingId: 't-idle-unmarked', ...row });
  const later = new Date(Date.now() + 31 * 60_000);
  expect(await sweepStuckExecutions(ctx, later)).toEqual([]);

  await markExecutionWork(ctx.now());
  expect(await sweepStuckExecutions(ctx, later)).toEqual(['t-idle-unmarked']);
});
