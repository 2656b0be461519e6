import type { InvocationContext } from '@azure/functions';
import { createLogger } from '../../../shared/logging';
import { validator } from '../../../shared/http/body';
import { runExecution } from './runner';
import { workflowLogWriter } from './workflow-logger';

const log = createLogger({ service: 'orchestrator', component: 'execution-queue' });
export const messageSchema = { type: 'object', required: ['trackingId'], properties: { trackingId: { type: 'string', minLength: 1, maxLength: 64 } } } as const;

/** Longest the end of an invocation waits for its log rows (Azure may freeze an instance between invocations). */
const FINAL_FLUSH_MS = 2000;

/**
 * The queue trigger. A malformed message can never succeed, so it is logged and dropped rather
 * than retried into the poison queue; a database failure outside any step throws, so the host
 * redelivers the message.
 */
export async function runQueuedExecution(message: unknown, context: InvocationContext): Promise<void> {
  const check = validator<{ trackingId: string }>(messageSchema);
  if (!check(message)) {
    log.error('malformed execution message dropped', { invocationId: context.invocationId });
    return;
  }
  try {
    const result = await runExecution(message.trackingId);
    log.info('execution run finished', {
      trackingId: message.trackingId,
      outcome: result.outcome,
      reason: result.reason,
      durationMs: result.totalDurationMs,
      dequeueCount: context.triggerMetadata?.dequeueCount,
    });
  } finally {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([workflowLogWriter().flush(), new Promise((resolve) => (timer = setTimeout(resolve, FINAL_FLUSH_MS)))]);
    clearTimeout(timer);
  }
}
