/** The band a health score falls in: 90-100 EXCELLENT, 85-89 GOOD, 70-84 FAIR, below 70 POOR. */
export type HealthBand = 'EXCELLENT' | 'GOOD' | 'FAIR' | 'POOR';

export type AlertLevel = 'HIGH' | 'MEDIUM';
export type AlertType = 'FAILURE_RATE' | 'AI_SERVICE_ISSUES' | 'SCHEMA_MISSING' | 'DATABASE_ISSUES' | 'STORAGE_ISSUES' | 'LONG_RUNNING';

export interface Alert {
  level: AlertLevel;
  type: AlertType;
  message: string;
  recommendation: string;
}

/** What the alert rules look at: the last 24 hours of executions and failed log steps, and what is processing now. */
export interface RecentActivity {
  /** Executions created in the window that finished (completed or failed). */
  finished: number;
  failed: number;
  /** Failed log steps in the window, by error_source. */
  errorsBySource: Partial<Record<string, number>>;
  /** Failed log steps in the window classified SCHEMA_MISSING. */
  schemaMissingErrors: number;
  /** Executions processing for more than 10 minutes. */
  longRunning: number;
}

/** Alert thresholds: an alert fires when its count is strictly greater than the threshold. */
export const ALERT_THRESHOLDS = {
  FAILURE_RATE_PERCENT: 20,
  AI_SERVICE_ISSUES: 10,
  SCHEMA_MISSING: 0,
  DATABASE_ISSUES: 5,
  STORAGE_ISSUES: 3,
  LONG_RUNNING: 0,
} as const;

/** Score deduction per active alert: current trouble weighs on the score beyond the 7-day success rate. */
export const ALERT_PENALTY: Record<AlertLevel, number> = { HIGH: 10, MEDIUM: 5 };

export function band(score: number): HealthBand {
  if (score >= 90) return 'EXCELLENT';
  if (score >= 85) return 'GOOD';
  if (score >= 70) return 'FAIR';
  return 'POOR';
}

/** Percentage of finished executions that completed; 100 when nothing finished (no evidence of failure). */
export function successRate(completed: number, failed: number): number {
  const finished = completed + failed;
  return finished === 0 ? 100 : Math.round((completed / finished) * 10_000) / 100;
}

/**
 * score = clamp(round(success rate over 7 days) - 10 x HIGH alerts - 5 x MEDIUM alerts, 0, 100).
 * The success rate is rounded first so a 89.6 % week with no alerts is 90, EXCELLENT.
 */
export function healthScore(sevenDaySuccessRate: number, alerts: readonly Pick<Alert, 'level'>[]): number {
  const penalty = alerts.reduce((sum, alert) => sum + ALERT_PENALTY[alert.level], 0);
  return Math.min(100, Math.max(0, Math.round(sevenDaySuccessRate) - penalty));
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : (part / whole) * 100);

/** The six alert rules, in priority order: FAILURE_RATE, AI_SERVICE_ISSUES and SCHEMA_MISSING are HIGH; DATABASE_ISSUES, STORAGE_ISSUES and LONG_RUNNING are MEDIUM. */
export function alertsFor(activity: RecentActivity): Alert[] {
  const alerts: Alert[] = [];
  const failureRate = percent(activity.failed, activity.finished);
  const ai = activity.errorsBySource.AI_SERVICE ?? 0;
  const database = activity.errorsBySource.SQL_DATABASE ?? 0;
  const storage = activity.errorsBySource.BLOB_STORAGE ?? 0;
  if (failureRate > ALERT_THRESHOLDS.FAILURE_RATE_PERCENT) {
    alerts.push({
      level: 'HIGH',
      type: 'FAILURE_RATE',
      message: `${activity.failed} of ${activity.finished} executions finished in the last 24 hours failed (${failureRate.toFixed(1)}%, threshold ${ALERT_THRESHOLDS.FAILURE_RATE_PERCENT}%)`,
      recommendation: 'Open the failure analysis (dashboard/failures?timeframe=24h) and fix the top error pattern first.',
    });
  }
  if (ai > ALERT_THRESHOLDS.AI_SERVICE_ISSUES) {
    alerts.push({
      level: 'HIGH',
      type: 'AI_SERVICE_ISSUES',
      message: `${ai} AI service failures in the last 24 hours (threshold ${ALERT_THRESHOLDS.AI_SERVICE_ISSUES})`,
      recommendation: 'Check the AI endpoint, its deployment name, key and quota; RATE_LIMIT errors call for a higher quota or fewer concurrent executions.',
    });
  }
  if (activity.schemaMissingErrors > ALERT_THRESHOLDS.SCHEMA_MISSING) {
    alerts.push({
      level: 'HIGH',
      type: 'SCHEMA_MISSING',
      message: `${activity.schemaMissingErrors} critical database schema errors in the last 24 hours`,
      recommendation: 'Run GET /orchestrator/health?schema=check and apply the migration that adds the workflow logger columns.',
    });
  }
  if (database > ALERT_THRESHOLDS.DATABASE_ISSUES) {
    alerts.push({
      level: 'MEDIUM',
      type: 'DATABASE_ISSUES',
      message: `${database} database errors in the last 24 hours (threshold ${ALERT_THRESHOLDS.DATABASE_ISSUES})`,
      recommendation: 'Check Azure SQL availability, DTU/vCore limits and connection pool size (SQL_POOL_MAX x instances).',
    });
  }
  if (storage > ALERT_THRESHOLDS.STORAGE_ISSUES) {
    alerts.push({
      level: 'MEDIUM',
      type: 'STORAGE_ISSUES',
      message: `${storage} storage errors in the last 24 hours (threshold ${ALERT_THRESHOLDS.STORAGE_ISSUES})`,
      recommendation: 'Check the storage account, its firewall and the managed identity role assignments (Storage Blob Data Contributor).',
    });
  }
  if (activity.longRunning > ALERT_THRESHOLDS.LONG_RUNNING) {
    alerts.push({
      level: 'MEDIUM',
      type: 'LONG_RUNNING',
      message: `${activity.longRunning} executions have been processing for more than 10 minutes`,
      recommendation:
        'Inspect them in dashboard/executions (long_running) and their logs in status/{trackingId}; a stuck step usually waits on the AI service.',
    });
  }
  return alerts;
}
