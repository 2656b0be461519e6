/**
 * The alerts in infra/modules/alerts.bicep read lines the apps write. These tests run the code that
 * writes them against the dev host (SQLite, Azurite) and check that every message and field the
 * Bicep queries name is one the code writes, with the values the alerts compare.
 */
import fs from 'node:fs';
import path from 'node:path';
import { reportSyncBacklog, SYNC_BACKLOG_MESSAGE } from '../../functions/payment/backlog';
import { paymentDb } from '../../functions/payment/tables';
import { QUEUE_DEPTH_MESSAGE, reportQueueDepth } from '../../functions/orchestrator/workflow/queue-depth';
import { failStuckExecutions, STUCK_EXECUTIONS_MESSAGE } from '../../functions/orchestrator/workflow/stuck';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { config } from '../../shared/config';
import type { Logger, LogFields } from '../../shared/logging';
import { enqueueJson } from '../../shared/storage';
import { startTestHost, type TestHost } from '../helpers/host';
import { parseBicep } from './bicep';

const ALERTS = parseBicep(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'infra', 'modules', 'alerts.bicep'), 'utf8'));
const query = (name: string) => {
  const value = ALERTS.vars.get(name)?.value;
  if (value?.kind !== 'string' || !value.value) throw new Error(`alerts.bicep: var ${name} is not a plain string`);
  return value.value;
};

/** A Logger that keeps every line it is given. */
function captureLog() {
  const lines: { level: string; message: string; fields: LogFields }[] = [];
  const logger: Logger = {
    debug: (message, fields = {}) => lines.push({ level: 'debug', message, fields }),
    info: (message, fields = {}) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields = {}) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields = {}) => lines.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return { logger, lines };
}

/** The customDimensions fields a query reads. */
const fieldsRead = (kql: string) => [...kql.matchAll(/customDimensions(?:\.(\w+)|\["(\w+)"\])/g)].map((m) => m[1] ?? m[2]);

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { SERVICES: 'payment,orchestrator' } });
});
afterAll(() => host.stop());

const NOW = new Date('2026-11-23T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

async function insertPayment(id: string, syncState: string, statusAt: string) {
  await paymentDb()
    .insertInto('payment_payments')
    .values({
      id,
      user_id: `user-${id}`,
      plan_type: 'pro',
      amount: 2900,
      currency: 'usd',
      price_version: 'test',
      status: 'succeeded',
      status_at: statusAt,
      failure_message: null,
      sync_state: syncState as never,
      sync_plan: 'pro',
      sync_attempts: 0,
      sync_next_at: statusAt,
      created_at: statusAt,
      updated_at: statusAt,
    } as never)
    .execute();
}

describe('the payment backlog line (plan syncs pending, payments in manual review)', () => {
  it('counts the syncs owed to identity, the age of the oldest and the payments in manual review', async () => {
    const empty = captureLog();
    expect(await reportSyncBacklog(empty.logger, NOW)).toEqual({ syncsPending: 0, oldestPendingSeconds: 0, manualReview: 0 });
    expect(empty.lines).toEqual([{ level: 'info', message: SYNC_BACKLOG_MESSAGE, fields: { syncsPending: 0, oldestPendingSeconds: 0, manualReview: 0 } }]);

    await insertPayment('pi_pending_recent', 'pending', minutesAgo(2));
    await insertPayment('pi_failed_old', 'failed', minutesAgo(20));
    await insertPayment('pi_review', 'manual_review', minutesAgo(600));
    await insertPayment('pi_synced', 'synced', minutesAgo(900));
    const { logger, lines } = captureLog();
    await reportSyncBacklog(logger, NOW);
    expect(lines).toEqual([{ level: 'info', message: SYNC_BACKLOG_MESSAGE, fields: { syncsPending: 2, oldestPendingSeconds: 1200, manualReview: 1 } }]);
  });

  it('is what the plan-syncs-pending and manual-review alerts read: the 15-minute alert fires on the 20-minute-old sync', () => {
    for (const name of ['syncsPendingQuery', 'manualReviewQuery']) {
      expect(query(name)).toContain(`message == "${SYNC_BACKLOG_MESSAGE}"`);
      for (const field of fieldsRead(query(name))) expect(['syncsPending', 'oldestPendingSeconds', 'manualReview']).toContain(field);
    }
    expect(query('syncsPendingQuery')).toMatch(/where oldestPendingSeconds > 900\b/);
    expect(query('manualReviewQuery')).toMatch(/where manualReview > 0\b/);
  });
});

describe('the orchestrator queue-depth line (poison queue)', () => {
  it('counts the messages in the report queue and its poison queue', async () => {
    const poison = `${config().ORCHESTRATOR_QUEUE}-poison`;
    await enqueueJson(poison, { trackingId: 'dead-1' });
    await enqueueJson(poison, { trackingId: 'dead-2' });
    const { logger, lines } = captureLog();
    await reportQueueDepth(logger);
    expect(lines).toEqual([
      {
        level: 'info',
        message: QUEUE_DEPTH_MESSAGE,
        fields: { queue: config().ORCHESTRATOR_QUEUE, queuedMessages: expect.any(Number), poisonQueue: poison, poisonMessages: 2 },
      },
    ]);
  });

  it('is what the poison-queue alert reads', () => {
    expect(query('poisonQueueQuery')).toContain(`message == "${QUEUE_DEPTH_MESSAGE}"`);
    expect(fieldsRead(query('poisonQueueQuery'))).toEqual(['poisonMessages']);
    expect(query('poisonQueueQuery')).toMatch(/where poisonMessages > 0\b/);
  });
});

describe('the stuck-executions line', () => {
  it('is written with the count of executions failed, which the stuck-executions alert sums', async () => {
    await insertExecution({
      trackingId: 't-monitor-stuck',
      companyName: 'Acme',
      industryId: 'tech',
      submission: {},
      requestedBy: 'u',
      plan: 'pro',
      now: new Date().toISOString(),
    });
    const { logger, lines } = captureLog();
    expect(await failStuckExecutions(new Date(Date.now() + 31 * 60_000), logger)).toEqual(['t-monitor-stuck']);
    expect(lines).toEqual([{ level: 'warn', message: STUCK_EXECUTIONS_MESSAGE, fields: { count: 1, trackingIds: ['t-monitor-stuck'] } }]);
    expect(query('stuckExecutionsQuery')).toContain(`message == "${STUCK_EXECUTIONS_MESSAGE}"`);
    expect(fieldsRead(query('stuckExecutionsQuery'))).toEqual(['count']);
  });
});

describe('alerts.bicep', () => {
  it('watches for both periodic lines going missing', () => {
    expect(query('heartbeatQuery')).toContain(`["${SYNC_BACKLOG_MESSAGE}", "${QUEUE_DEPTH_MESSAGE}"]`);
  });

  it('runs every log-search query it declares, and puts each app in its server-error query', () => {
    const logAlerts = ALERTS.vars.get('logAlerts')!.value;
    const used =
      logAlerts.kind === 'array'
        ? logAlerts.items.map((item) => (item.kind === 'object' ? item.entries.find((e) => e.key === 'query')?.value : undefined))
        : [];
    const declared = [...ALERTS.vars.keys()].filter((name) => name.endsWith('Query') && name !== 'serverErrorQuery');
    expect(used.map((q) => (q?.kind === 'ident' ? q.name : '?')).sort()).toEqual(declared.sort());
    expect(query('serverErrorQuery')).toContain('cloud_RoleName =~ "{app}"');
  });
});
