/**
 * The alerts in infra/modules/alerts.bicep read lines the apps write. These tests run the code that
 * writes them against the dev host (SQLite, Azurite) and check that every message and field the
 * Bicep queries name is one the code writes, with the values the alerts compare.
 */
import { appSettings } from '../helpers/context';
import { reportSyncBacklog, SYNC_BACKLOG_MESSAGE } from '../../functions/payment/backlog';
import { QUEUE_DEPTH_MESSAGE, reportQueueDepth } from '../../functions/orchestrator/workflow/queue-depth';
import { failStuckExecutions, STUCK_EXECUTIONS_MESSAGE } from '../../functions/orchestrator/workflow/stuck';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { orchestratorContext } from '../../functions/orchestrator/context';

import { enqueueJson } from '../../shared/storage';
import { startTestHost, withDatabaseClosed, type TestHost } from '../helpers/host';
import { recordingLogger } from '../helpers/logs';
import { insertPaidPayment, paymentOn } from '../payment/helpers';
import { compiledInfra, describeWithBicep, moduleDeployment, moduleTemplate, resourcesOfType, type ArmTemplate } from '../helpers/bicep';
import { evaluate, moduleScope, topScope } from '../../scripts/arm-expressions';

/** The customDimensions fields a query reads. */
const fieldsRead = (kql: string) => [...kql.matchAll(/customDimensions(?:\.(\w+)|\["(\w+)"\])/g)].map((m) => m[1] ?? m[2]);

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { SERVICES: 'payment,orchestrator' } });
});
afterAll(() => host.stop());

const NOW = new Date('2026-11-23T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

/** A payment of its own user in `syncState` since `statusAt`. */
const insertPayment = (id: string, syncState: 'pending' | 'failed' | 'manual_review' | 'synced', statusAt: string) =>
  insertPaidPayment(host, { id, userId: `user-${id}`, at: statusAt, syncState });

describe('the payment backlog line (plan syncs pending, payments in manual review)', () => {
  it('counts the syncs owed to identity, the age of the oldest and the payments in manual review', async () => {
    const empty = recordingLogger();
    expect(await reportSyncBacklog(paymentOn(host, empty.log), NOW)).toEqual({ syncsPending: 0, oldestPendingSeconds: 0, manualReview: 0 });
    expect(empty.lines).toEqual([{ level: 'info', message: SYNC_BACKLOG_MESSAGE, fields: { syncsPending: 0, oldestPendingSeconds: 0, manualReview: 0 } }]);

    // The oldest owed sync is neither the first state counted nor the newest of its state.
    await insertPayment('pi_pending_recent', 'pending', minutesAgo(2));
    await insertPayment('pi_pending_oldest', 'pending', minutesAgo(45));
    await insertPayment('pi_failed_old', 'failed', minutesAgo(20));
    await insertPayment('pi_failed_recent', 'failed', minutesAgo(1));
    await insertPayment('pi_review', 'manual_review', minutesAgo(600));
    await insertPayment('pi_synced', 'synced', minutesAgo(900));
    const { log: logger, lines } = recordingLogger();
    await reportSyncBacklog(paymentOn(host, logger), NOW);
    expect(lines).toEqual([{ level: 'info', message: SYNC_BACKLOG_MESSAGE, fields: { syncsPending: 4, oldestPendingSeconds: 2700, manualReview: 1 } }]);
  });

  it('a backlog that cannot be counted is an error line, never an exception in the timer', async () => {
    const { log: logger, lines } = recordingLogger();
    expect(await withDatabaseClosed(host, () => reportSyncBacklog(paymentOn(host, logger), NOW))).toBeUndefined();
    expect(lines).toEqual([{ level: 'error', message: 'payment sync backlog could not be counted', fields: { error: expect.any(Error) } }]);
  });
});

describe('the orchestrator queue-depth line (poison queue)', () => {
  it('counts the messages in the report queue and its poison queue', async () => {
    const poison = `${appSettings().ORCHESTRATOR_QUEUE}-poison`;
    await enqueueJson(poison, { trackingId: 'dead-1' });
    await enqueueJson(poison, { trackingId: 'dead-2' });
    const { log: logger, lines } = recordingLogger();
    await reportQueueDepth(orchestratorContext(host.platform, logger));
    expect(lines).toEqual([
      {
        level: 'info',
        message: QUEUE_DEPTH_MESSAGE,
        fields: { queue: appSettings().ORCHESTRATOR_QUEUE, queuedMessages: expect.any(Number), poisonQueue: poison, poisonMessages: 2 },
      },
    ]);
  });
});

describe('the stuck-executions line', () => {
  it('is written with the count of executions failed, which the stuck-executions alert sums', async () => {
    const { log: logger, lines } = recordingLogger();
    const ctx = orchestratorContext(host.platform, logger);
    await insertExecution(ctx, {
      trackingId: 't-monitor-stuck',
      companyName: 'Acme',
      industryId: 'tech',
      submission: {},
      requestedBy: 'u',
      plan: 'pro',
      now: new Date().toISOString(),
    });
    expect(await failStuckExecutions(ctx, new Date(Date.now() + 31 * 60_000))).toEqual(['t-monitor-stuck']);
    expect(lines).toEqual([{ level: 'warn', message: STUCK_EXECUTIONS_MESSAGE, fields: { count: 1, trackingIds: ['t-monitor-stuck'] } }]);
  });
});

describeWithBicep('the alert queries of the compiled template (infra/modules/alerts.bicep)', (bicep) => {
  let alerts: ArmTemplate;
  beforeAll(() => {
    alerts = moduleTemplate(compiledInfra(bicep), 'alerts');
  });
  const query = (name: string) => {
    const value = alerts.variables?.[name];
    if (typeof value !== 'string' || !value) throw new Error(`alerts.bicep: var ${name} is not a plain string`);
    return value;
  };

  it('the plan-syncs-pending and manual-review alerts read the backlog line: the 15-minute alert fires on the 20-minute-old sync', () => {
    for (const name of ['syncsPendingQuery', 'manualReviewQuery']) {
      expect(query(name)).toContain(`message == "${SYNC_BACKLOG_MESSAGE}"`);
      for (const field of fieldsRead(query(name))) expect(['syncsPending', 'oldestPendingSeconds', 'manualReview']).toContain(field);
    }
    expect(query('syncsPendingQuery')).toMatch(/where oldestPendingSeconds > 900\b/);
    expect(query('manualReviewQuery')).toMatch(/where manualReview > 0\b/);
  });

  it('the poison-queue alert reads the queue-depth line', () => {
    expect(query('poisonQueueQuery')).toContain(`message == "${QUEUE_DEPTH_MESSAGE}"`);
    expect(fieldsRead(query('poisonQueueQuery'))).toEqual(['poisonMessages']);
    expect(query('poisonQueueQuery')).toMatch(/where poisonMessages > 0\b/);
  });

  it('the stuck-executions alert sums the count of the stuck-executions line', () => {
    expect(query('stuckExecutionsQuery')).toContain(`message == "${STUCK_EXECUTIONS_MESSAGE}"`);
    expect(fieldsRead(query('stuckExecutionsQuery'))).toEqual(['count']);
  });

  it('watches for both periodic lines going missing', () => {
    expect(query('heartbeatQuery')).toContain(`["${SYNC_BACKLOG_MESSAGE}", "${QUEUE_DEPTH_MESSAGE}"]`);
  });

  it('runs every log-search query it declares', () => {
    const used = (alerts.variables!.logAlerts as { query: string }[]).map((rule) => rule.query);
    const declared = Object.keys(alerts.variables!).filter((name) => name.endsWith('Query') && name !== 'serverErrorQuery');
    expect(declared.length).toBeGreaterThan(0);
    expect(used.sort()).toEqual(declared.map((name) => `[variables('${name}')]`).sort());
  });

  it('counts server errors per app over HTTP requests only, each request once: several in one operation each count, a row nested in another of the same app does not', () => {
    const serverErrors = query('serverErrorQuery');
    expect(serverErrors).toContain('cloud_RoleName in~ ({apps}) and isnotempty(url)');
    // Not grouped by operation (that counted several calls in one operation once): only the app
    // exporter's row nested under the host's row of the same invocation is left out.
    expect(serverErrors).not.toContain('by operation_Id');
    expect(serverErrors).toContain('| join kind=leftanti (http | project parentRow = id) on $left.operation_ParentId == $right.parentRow\n');
    expect(serverErrors).toMatch(
      /\| summarize total = count\(\), failed = countif\(toint\(resultCode\) >= 500\) by cloud_RoleName\n\| where total >= 20 and failed \* 100\.0 \/ total > 5\n/,
    );
    // One rule over every app, which the query names.
    const rules = resourcesOfType(alerts, 'Microsoft.Insights/scheduledQueryRules').filter((r) => !r.copy);
    expect(rules).toHaveLength(1);
    const main = compiledInfra(bicep);
    const scope = moduleScope(moduleDeployment(main, 'alerts'), topScope(main, { principalId: 'deployer' }));
    const kql = evaluate(rules[0].properties.criteria.allOf[0].query, scope) as string;
    expect(kql).toContain(
      'cloud_RoleName in~ ("name(function-app-identity)", "name(function-app-payment)", "name(function-app-orchestrator)", "name(function-app-visual)")',
    );
    expect(evaluate(rules[0].properties.evaluationFrequency, scope)).toBe('PT15M');
  });
});
