import { executionHours } from '../rollups/read';
import { alertsFor, band, healthScore, successRate } from './health-score';
import { ERROR_PATTERNS, ERROR_SOURCES, countLongRunning, errorCounts, executionCounts, type Reads } from './queries';
import { RECENT_WINDOW_MS, SUCCESS_RATE_WINDOW_MS, isoBefore, last24Hours } from './time-windows';

export const DASHBOARD_VERSION = '2.3.1-enhanced';

/** One hour of the 24-hour trend, by the creation time of executions. */
export interface HourlyTrend {
  /** Start of the hour, ISO 8601 UTC. */
  hour: string;
  executions: number;
  completed: number;
  failed: number;
  processing: number;
  /** Mean duration of the executions of that hour that completed; null when none did. */
  avg_duration_ms: number | null;
}

/** From the hourly execution rollup: the window starts on an hour, so no raw rows are read. */
export async function hourlyTrends(ctx: Reads, now: Date): Promise<HourlyTrend[]> {
  const buckets = last24Hours(now);
  const rows = await executionHours(ctx, buckets[0].key, true);
  const trends = new Map<string, HourlyTrend>(
    buckets.map(({ key, start }) => [key, { hour: start, executions: 0, completed: 0, failed: 0, processing: 0, avg_duration_ms: null }]),
  );
  for (const row of rows) {
    const trend = trends.get(row.hour);
    if (!trend) continue;
    trend[row.processing_status] = row.executions;
    trend.executions += row.executions;
    if (row.processing_status === 'completed' && row.duration_count > 0) trend.avg_duration_ms = Math.round(row.duration_sum / row.duration_count);
  }
  return [...trends.values()];
}

const byCountThenName = <T extends { name: string; count: number }>(a: T, b: T) => b.count - a.count || a.name.localeCompare(b.name);

/** GET dashboard/overview: health score, error-source analysis, alerts and hourly trends. */
export async function dashboardOverview(ctx: Reads, now: Date) {
  const weekSince = isoBefore(now, SUCCESS_RATE_WINDOW_MS);
  const recentSince = isoBefore(now, RECENT_WINDOW_MS);
  const [week, recent, sources, patterns, longRunning, hourly] = await Promise.all([
    executionCounts(ctx, weekSince),
    executionCounts(ctx, recentSince),
    errorCounts(ctx, 'error_source', ERROR_SOURCES, recentSince),
    errorCounts(ctx, 'error_pattern', ERROR_PATTERNS, recentSince),
    countLongRunning(ctx, now),
    hourlyTrends(ctx, now),
  ]);

  const countOf = (map: Map<string, { count: number }>, name: string) => map.get(name)?.count ?? 0;
  const alerts = alertsFor({
    finished: recent.completed + recent.failed,
    failed: recent.failed,
    errorsBySource: Object.fromEntries(ERROR_SOURCES.map((s) => [s, countOf(sources, s)])),
    schemaMissingErrors: countOf(patterns, 'SCHEMA_MISSING'),
    longRunning,
  });
  const rate = successRate(week.completed, week.failed);
  const score = healthScore(rate, alerts);
  const totalBySource = ERROR_SOURCES.reduce((sum, s) => sum + countOf(sources, s), 0);
  const percentOf = (count: number) => (totalBySource === 0 ? 0 : Math.round((count / totalBySource) * 10_000) / 100);

  return {
    success: true,
    version: DASHBOARD_VERSION,
    generated_at: now.toISOString(),
    dashboard: {
      health: {
        score,
        status: band(score),
        total_executions: week.total,
        success_rate: rate,
        avg_processing_time_ms: week.average_duration_ms,
        completed: week.completed,
        failed: week.failed,
        processing: week.processing,
        window: '7d',
        since: weekSince,
      },
      failures: {
        window: '24h',
        since: recentSince,
        total_errors: totalBySource,
        by_source: ERROR_SOURCES.map((name) => ({ name, count: countOf(sources, name) }))
          .sort(byCountThenName)
          .map(({ name, count }) => ({
            error_source: name,
            error_count: count,
            percentage: percentOf(count),
            latest_occurrence: sources.get(name)?.latest ?? null,
          })),
        by_pattern: ERROR_PATTERNS.map((name) => ({ name, count: countOf(patterns, name) }))
          .filter((p) => p.count > 0)
          .sort(byCountThenName)
          .map(({ name, count }) => ({ error_pattern: name, error_count: count, latest_occurrence: patterns.get(name)?.latest ?? null })),
      },
      alerts,
      long_running_count: longRunning,
      trends: { window: '24h', interval: 'hour', hourly },
    },
  };
}
