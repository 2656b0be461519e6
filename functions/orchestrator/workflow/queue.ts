import type { InvocationContext } from '@azure/functions';
import { validator } from '../../../shared/http/body';
import type { Infer } from '../../../shared/http/schemas';
import type { OrchestratorContext } from '../context';
import { EXECUTION_MESSAGE } from '../schemas';
import { notifyFinished } from '../notify/dispatch';
import { runExecution } from './runner';

/** Longest the end of an invocation waits for its log rows (Azure may freeze an instance between invocations). */
const FINAL_FLUSH_MS = 2000;

/**
 * The queue trigger's run. A malformed message can never succeed, so it is logged and dropped
 * rather than retried into the poison queue; a database failure outside any step throws, so the
 * host redelivers the message.
 */
export async function runQueuedExecution(message: unknown, ctx: OrchestratorContext, invocation: InvocationContext): Promise<void> {
  // The context's logger names the function and the invocation on every line.
  const log = ctx.log;
  const check = validator<Infer<typeof EXECUTION_MESSAGE>>(EXECUTION_MESSAGE);
  if (!check(message)) {
    log.error('malformed execution message dropped');
    return;
  }
  try {
    const result = await runExecution(ctx, message.trackingId);
    log.info('execution run finished', {
      trackingId: message.trackingId,
      outcome: result.outcome,
      reason: result.reason,
      durationMs: result.totalDurationMs,
      dequeueCount: invocation.triggerMetadata?.dequeueCount,
    });
    // The requester's notice goes out now; it never fails the run (the timer retries it).
    if (result.outcome !== 'skipped') await notifyFinished(ctx, message.trackingId);
  } finally {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ctx.logWriter.flush(), new Promise((resolve) => (timer = setTimeout(resolve, FINAL_FLUSH_MS)))]);
    clearTimeout(timer);
  }
}
