import type { LiveUser } from '../../../shared/auth/live-session';
import { check, checkSql, checkStorage, healthReport, optional } from '../../../shared/health';
import { json } from '../../../shared/http/handler';
import { op } from '../../../shared/http/route';
import type { Infer } from '../../../shared/http/schemas';
import type * as s from '../schemas';
import { orchestratorDb } from '../db/tables';
import { checkAi, checkVisual } from '../dependencies';
import { checkLogSchema } from '../workflow/schema-check';
import { WORKFLOW_LOGGER_VERSION, workflowLogWriter } from '../workflow/workflow-logger';
import { currentTime } from '../../../shared/platform';

/**
 * GET orchestrator/health: dependency health (SQL, Storage and the workflow log required; the AI
 * provider and the visual service optional: degraded with the problem); `?schema=check` compares
 * the log table with what the logger needs.
 */
export const health = op<LiveUser | undefined, unknown, Infer<typeof s.HEALTH_QUERY>>(
  "Health of the orchestrator and its dependencies; with schema=check, the log table's schema against the workflow logger",
  async ({ query }) => {
    if (query.schema === 'check') {
      const result = await checkLogSchema(orchestratorDb());
      return json(200, { service: 'orchestrator', workflowLoggerVersion: WORKFLOW_LOGGER_VERSION, timestamp: currentTime().toISOString(), ...result });
    }
    const workflowLog = () =>
      check(async () => {
        const stats = workflowLogWriter().getStats();
        if (stats.tableMissing) throw new Error('log table missing: logging to the console only');
        return `${stats.pending} rows pending, ${stats.persisted} persisted, ${stats.failedFlushes} failed flushes`;
      });
    // The AI provider and the visual service are optional: without them the orchestrator is degraded, not down.
    return healthReport(
      'orchestrator',
      { sql: checkSql, storage: checkStorage, workflowLog, ai: optional(() => checkAi()), visual: optional(checkVisual) },
      query.skip ? [query.skip] : [],
    );
  },
);
