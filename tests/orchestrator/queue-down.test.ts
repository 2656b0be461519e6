import { QueueServiceClient } from '@azure/storage-queue';
import { DEFAULT_PLANS } from '../../shared/plans';
import { expectErrorAnswer } from '../helpers/errors';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn } from '../helpers/identity';
import { waitFor } from '../helpers/wait';
import { ACME, db } from './helpers';

/**
 * A report request whose message cannot be enqueued: 503 QUEUE_UNAVAILABLE with Retry-After: 30,
 * the execution row deleted and the quota given back (no execution without its message). The fault
 * is real: the queue is deleted from the host's Azurite under the running host, so Storage refuses
 * the message. A free plan of one report a month shows the quota came back: the next request, once
 * the queue is there again, is accepted as the month's first.
 */
let host: TestHost;
beforeAll(async () => {
  const plans = DEFAULT_PLANS.map((p) => (p.id === 'free' ? { ...p, reportsPerMonth: 1 } : p));
  host = await startTestHost({ env: { PLANS_JSON: JSON.stringify(plans) } });
});
afterAll(() => host.stop());

test('the queue refusing the message: 503 QUEUE_UNAVAILABLE, Retry-After 30, no execution left, the quota given back', async () => {
  const user = await signIn(host, 'queue-down@example.com');
  const submit = () =>
    host.fetch('/orchestrator/api/reports', {
      method: 'POST',
      headers: { ...bearer(user.accessToken), 'content-type': 'application/json' },
      body: JSON.stringify(ACME),
    });
  const executions = async () =>
    (await db().selectFrom('orchestrator_executions').select('tracking_id').where('requested_by', '=', user.user.id).execute()).length;

  // The host made its queue at start (its trigger polls it); it goes away under the host.
  const queue = QueueServiceClient.fromConnectionString(host.platform.config.AzureWebJobsStorage!).getQueueClient(host.platform.config.ORCHESTRATOR_QUEUE);
  await waitFor(() => queue.exists(), 30_000, 'the host to create its queue');
  await queue.delete();

  const refused = await submit();
  expect(await expectErrorAnswer(refused, 503, 'QUEUE_UNAVAILABLE')).toMatchObject({ message: expect.stringContaining('try again') });
  expect(refused.headers.get('retry-after')).toBe('30');
  expect(await executions()).toBe(0);

  // The queue is back: with one report a month, this is accepted only because the refused one was given back.
  await queue.create();
  const accepted = await submit();
  expect(accepted.status).toBe(202);
  expect(((await accepted.json()) as { quota: { count: number; limit: number } }).quota).toMatchObject({ count: 1, limit: 1 });
  expect(await executions()).toBe(1);
});

test('with an Idempotency-Key: the queue refusing lets the key go, so a retry with the same key makes the report', async () => {
  const user = await signIn(host, 'queue-down-key@example.com');
  const key = 'queue-down-retry-1';
  const submit = () =>
    host.fetch('/orchestrator/api/reports', {
      method: 'POST',
      headers: { ...bearer(user.accessToken), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(ACME),
    });
  const keys = () => db().selectFrom('orchestrator_report_keys').select('tracking_id').where('user_id', '=', user.user.id).execute();
  const queue = QueueServiceClient.fromConnectionString(host.platform.config.AzureWebJobsStorage!).getQueueClient(host.platform.config.ORCHESTRATOR_QUEUE);
  await waitFor(() => queue.exists(), 30_000, 'the host to create its queue');
  await queue.delete();

  await expectErrorAnswer(await submit(), 503, 'QUEUE_UNAVAILABLE');
  // No key is left pointing at a tracking id that does not exist.
  expect(await keys()).toEqual([]);

  await queue.create();
  const accepted = await submit();
  expect(accepted.status).toBe(202);
  expect(accepted.headers.get('idempotent-replayed')).toBeNull();
  const { trackingId, quota } = (await accepted.json()) as { trackingId: string; quota: { count: number } };
  expect(quota.count).toBe(1);
  expect(await keys()).toEqual([{ tracking_id: trackingId }]);
  const executions = await db().selectFrom('orchestrator_executions').select('tracking_id').where('requested_by', '=', user.user.id).execute();
  expect(executions).toEqual([{ tracking_id: trackingId }]);
});
