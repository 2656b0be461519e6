import type { OrchestratorContext } from '../context';

/**
 * The message of the line the stuck-execution timer writes every minute. Application Insights
 * receives it as a `traces` row with this `message` and the QueueDepth fields as `customDimensions`;
 * the poison-queue alert in infra/modules/alerts.bicep queries exactly these names.
 */
export const QUEUE_DEPTH_MESSAGE = 'orchestrator queue depth';

export interface QueueDepth {
  queue: string;
  /** Executions waiting for a worker (approximate, as Storage reports it). */
  queuedMessages: number;
  poisonQueue: string;
  /** Executions the host gave up on after 5 failed dequeues: each one is a report that never ran. */
  poisonMessages: number;
}

export async function queueDepth(ctx: Pick<OrchestratorContext, 'config' | 'storage'>): Promise<QueueDepth> {
  const name = ctx.config.ORCHESTRATOR_QUEUE;
  const poisonQueue = `${name}-poison`;
  const count = async (queueName: string) => (await (await ctx.storage.queue(queueName)).getProperties()).approximateMessagesCount ?? 0;
  const [queuedMessages, poisonMessages] = await Promise.all([count(name), count(poisonQueue)]);
  return { queue: name, queuedMessages, poisonQueue, poisonMessages };
}

/** Writes the queue-depth line the alerts read (on the context's log); a failure to read it is logged, never thrown into the timer. */
export async function reportQueueDepth(ctx: Pick<OrchestratorContext, 'config' | 'storage' | 'log'>): Promise<QueueDepth | undefined> {
  const { log } = ctx;
  try {
    const depth = await queueDepth(ctx);
    log.info(QUEUE_DEPTH_MESSAGE, { ...depth });
    return depth;
  } catch (error) {
    log.error('orchestrator queue depth could not be read', { error });
    return undefined;
  }
}
