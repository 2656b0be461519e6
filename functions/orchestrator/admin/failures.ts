import { sql, first, toIso } from '../../../shared/sql/dialect';
import { ERROR_PATTERNS, ERROR_SOURCES, errorCounts, executionCounts, type Reads } from './queries';
import { notDiagnostic, stepKey } from '../db/rollups';
import { later, splitWindow } from '../rollups/keys';
import { failuresPerHour, logCounts } from '../rollups/read';
import { TIMEFRAMES, bucketKeyOf, bucketsBetween, isoBefore, type Timeframe } from './time-windows';

type Priority = 'HIGH' | 'MEDIUM' | 'LOW';
const PRIORITY_RANK: Record<Priority, number> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

/** What to do about each error pattern the workflow logger assigns. */
export const TROUBLESHOOTING: Record<(typeof ERROR_PATTERNS)[number], { priority: Priority; recommendation: string }> = {
  SCHEMA_MISSING: {
    priority: 'HIGH',
    recommendation: 'The processing log lacks workflow logger columns: run GET /orchestrator/health?schema=check and apply the migration it recommends.',
  },
  DATABASE_CONSTRAINT: {
    priority: 'HIGH',
    recommendation:
      'A write broke a constraint; a missing-column constraint on processing_step is fixed by the schema migration that adds the workflow logger columns.',
  },
  SQL_CONNECTION: {
    priority: 'HIGH',
    recommendation: 'Check Azure SQL availability, firewall and managed identity login; lower SQL_POOL_MAX if the server reports too many sessions.',
  },
  AI_SERVICE: {
    priority: 'HIGH',
    recommendation: 'Check the AI endpoint, deployment name and key; look at the provider status page.',
  },
  BLOB_CONNECTION: {
    priority: 'MEDIUM',
    recommendation: 'Check the storage account, its network rules and the Storage Blob Data Contributor role of the managed identity.',
  },
  TIMEOUT: {
    priority: 'MEDIUM',
    recommendation: 'Steps ran out of time: compare step durations in the status view and raise the step timeout or reduce report size.',
  },
  RATE_LIMIT: {
    priority: 'MEDIUM',
    recommendation: 'The AI service throttled requests: raise the deployment quota (tokens per minute) or run fewer executions at once.',
  },
  OTHER: {
    priority: 'LOW',
    recommendation: 'Unclassified errors: read sample_messages and the execution logs; add a classification rule if one recurs.',
  },
};

const SAMPLES_PER_PATTERN = 3;
/** Recent messages read per pattern to find distinct samples. */
const SAMPLE_SCAN = 20;
export const AFFECTED_CLIENTS_LIMIT = 50;

/** Up to three distinct recent messages of a pattern, newest first, joined by " | " (sample_messages is one string). */
async function sampleMessages(ctx: Reads, pattern: string, since: string): Promise<string> {
  const database = ctx.db;
  const rows = await first(
    database,
    database
      .selectFrom('orchestrator_processing_log')
      .select('error_message')
      .where('error_pattern', '=', pattern)
      .where('timestamp', '>=', since)
      .where('error_message', 'is not', null)
      .where(notDiagnostic())
      .orderBy('timestamp', 'desc'),
    SAMPLE_SCAN,
  ).execute();
  return [...new Set(rows.map((r) => r.error_message as string))].slice(0, SAMPLES_PER_PATTERN).join(' | ');
}

/** Ties in the order SQL groups them: no name first, then by code point. */
const byName = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

/**
 * Failed steps in the window, per step, counted where the failure was classified (a step failing
 * because a step inside it failed is not counted again): whole hours from the rollup, the first,
 * partial hour from the (status, timestamp, step) index.
 */
async function stepFailures(ctx: Reads, since: string) {
  const { partialEnd, fromHour } = splitWindow(since);
  const [hours, partial] = await Promise.all([
    logCounts(ctx, 'failed_step', fromHour),
    ctx.db
      .selectFrom('orchestrator_processing_log')
      .select(['step_number', 'step_name', sql<number>`count(*)`.as('failures'), sql<string | Date>`max(${sql.ref('timestamp')})`.as('latest')])
      .where('status', '=', 'failed')
      .where('timestamp', '>=', since)
      .where('timestamp', '<', partialEnd)
      .where('error_pattern', 'is not', null)
      .where(notDiagnostic())
      .groupBy(['step_number', 'step_name'])
      .execute(),
  ]);
  const steps = new Map<string, { step_number: number | null; step_name: string | null; failures: number; latest: string | null }>();
  const add = (step_number: number | null, step_name: string | null, failures: number, latest: string | Date | null) => {
    const key = stepKey(step_number, step_name);
    const step = steps.get(key) ?? { step_number, step_name, failures: 0, latest: null };
    step.failures += failures;
    step.latest = later(step.latest, latest);
    steps.set(key, step);
  };
  for (const r of partial) add(r.step_number, r.step_name, Number(r.failures), r.latest);
  for (const r of hours) add(r.step_number, r.step_name, r.occurrences, r.latest);
  const rows = [...steps.values()];
  const total = rows.reduce((sum, r) => sum + r.failures, 0);
  return rows
    .map((r) => ({
      step_number: r.step_number,
      step_name: r.step_name,
      failures: r.failures,
      percentage: total === 0 ? 0 : Math.round((r.failures / total) * 10_000) / 100,
      latest_failure: r.latest,
    }))
    .sort((a, b) => b.failures - a.failures || (a.step_number ?? -1) - (b.step_number ?? -1) || byName(a.step_name, b.step_name));
}

/** The most recent failed executions of the window (who was affected, by what) and how many there were (from the execution counts). */
async function affectedClients(ctx: Reads, since: string) {
  const database = ctx.db;
  const [counts, rows] = await Promise.all([
    executionCounts(ctx, since),
    first(
      database,
      database
        .selectFrom('orchestrator_executions')
        .where('processing_status', '=', 'failed')
        .where('created_at', '>=', since)
        .where(notDiagnostic())
        .select([
          'tracking_id',
          'company_name',
          'industry_id',
          'created_at',
          'completed_at',
          'updated_at',
          'error_pattern',
          'error_source',
          'error_step',
          'error_message',
        ])
        .orderBy('created_at', 'desc')
        .orderBy('tracking_id', 'desc'),
      AFFECTED_CLIENTS_LIMIT,
    ).execute(),
  ]);
  return {
    failed_executions: counts.failed,
    clients: rows.map((r) => ({
      company_name: r.company_name,
      industry_id: r.industry_id,
      tracking_id: r.tracking_id,
      submitted_at: toIso(r.created_at),
      failed_at: toIso(r.completed_at ?? r.updated_at),
      error_pattern: r.error_pattern,
      error_source: r.error_source,
      error_step: r.error_step,
      error_message: r.error_message,
    })),
  };
}

/**
 * Failed steps per hour (24h) or per day (7d, 30d); the first bucket is partial, starting at the
 * window's start, and the last one takes every later row. Whole hours come from the rollup, the
 * window's first, partial hour from the (status, timestamp) index.
 */
async function timeline(ctx: Reads, since: string, now: Date, timeframe: Timeframe) {
  const { unit } = TIMEFRAMES[timeframe];
  const { partialEnd, fromHour } = splitWindow(since);
  const [hours, partial] = await Promise.all([
    failuresPerHour(ctx, fromHour),
    ctx.db
      .selectFrom('orchestrator_processing_log')
      .select(sql<number>`count(*)`.as('n'))
      .where('status', '=', 'failed')
      .where('timestamp', '>=', since)
      .where('timestamp', '<', partialEnd)
      .where('error_pattern', 'is not', null)
      .where(notDiagnostic())
      .executeTakeFirstOrThrow(),
  ]);
  const buckets = bucketsBetween(new Date(since), now, unit);
  const points = buckets.map(({ start }) => ({ period_start: start, failures: 0 }));
  const index = new Map(buckets.map(({ key }, i) => [key, i]));
  points[0].failures += Number(partial.n);
  for (const { hour, failures } of hours) points[index.get(bucketKeyOf(hour, unit)) ?? points.length - 1].failures += failures;
  return { interval: unit, points };
}

/** GET dashboard/failures: what failed in the timeframe, why, where, whom it hit and when. */
export async function failureAnalysis(ctx: Reads, now: Date, timeframe: Timeframe) {
  const since = isoBefore(now, TIMEFRAMES[timeframe].ms);
  const [patterns, sources, steps, affected, points] = await Promise.all([
    errorCounts(ctx, 'error_pattern', ERROR_PATTERNS, since),
    errorCounts(ctx, 'error_source', ERROR_SOURCES, since),
    stepFailures(ctx, since),
    affectedClients(ctx, since),
    timeline(ctx, since, now, timeframe),
  ]);
  const seen = ERROR_PATTERNS.filter((p) => (patterns.get(p)?.count ?? 0) > 0);
  const samples = await Promise.all(seen.map((p) => sampleMessages(ctx, p, since)));
  const errorPatterns = seen
    .map((p, i) => ({ error_pattern: p, occurrences: patterns.get(p)!.count, latest_occurrence: patterns.get(p)!.latest, sample_messages: samples[i] }))
    .sort((a, b) => b.occurrences - a.occurrences || a.error_pattern.localeCompare(b.error_pattern));
  const recommendations = errorPatterns
    .map((p) => ({ issue: p.error_pattern, count: p.occurrences, ...TROUBLESHOOTING[p.error_pattern] }))
    .sort((a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || b.count - a.count)
    .map(({ issue, count, recommendation, priority }) => ({ issue, count, recommendation, priority }));

  return {
    success: true,
    timeframe,
    since,
    generated_at: now.toISOString(),
    failure_analysis: {
      total_errors: errorPatterns.reduce((sum, p) => sum + p.occurrences, 0),
      error_patterns: errorPatterns,
      error_sources: ERROR_SOURCES.map((s) => ({ error_source: s, error_count: sources.get(s)?.count ?? 0 })).sort(
        (a, b) => b.error_count - a.error_count || a.error_source.localeCompare(b.error_source),
      ),
      troubleshooting_recommendations: recommendations,
      step_failures: steps,
      affected_clients: affected,
      timeline: points,
    },
  };
}
