import { requireAdmin } from '../../../shared/auth/access-token';
import { readQuery } from '../../../shared/http/body';
import { http, json } from '../../../shared/http/handler';
import { check, checkSql, checkStorage, healthReport } from '../../../shared/health';
import { db } from '../../../shared/sql/db';
import { checkLogSchema } from '../workflow/schema-check';
import { WORKFLOW_LOGGER_VERSION, workflowLogWriter } from '../workflow/workflow-logger';

const querySchema = { type: 'object', additionalProperties: false, properties: { schema: { type: 'string', enum: ['check'] } } } as const;

/** GET orchestrator/health: public dependency health; `?schema=check` (admin) compares the log table with what the logger needs. */
export const health = http('orchestrator', async (request) => {
  const query = readQuery<{ schema?: 'check' }>(request, querySchema);
  if (query.schema === 'check') {
    await requireAdmin(request);
    const result = await checkLogSchema(db());
    return json(200, { service: 'orchestrator', workflowLoggerVersion: WORKFLOW_LOGGER_VERSION, timestamp: new Date().toISOString(), ...result });
  }
  const workflowLog = check(async () => {
    const stats = workflowLogWriter().getStats();
    if (stats.tableMissing) throw new Error('log table missing: logging to the console only');
    return `${stats.pending} rows pending, ${stats.persisted} persisted, ${stats.failedFlushes} failed flushes`;
  });
  return healthReport('orchestrator', { sql: checkSql(), storage: checkStorage(), workflowLog });
});
