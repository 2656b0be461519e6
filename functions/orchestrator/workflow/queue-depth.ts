import { config } from '../../../shared/config';
import { createLogger, type Logger } from '../../../shared/logging';
import { queue } from '../../../shared/storage';

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

export async function queueDepth(): Promise<QueueDepth> {
  const name = config().ORCHESTRATOR_QUEUE;
  const poisonQueue = `${name}-poison`;
  const count = async (queueName: string) => (await (await queue(queueName)).getProperties()).approximateMessagesCount ?? 0;
  const [queuedMessages, poisonMessages] = await Promise.all([count(name), count(poisonQueue)]);
  return { queue: name, queuedMessages, poisonQueue, poisonMessages };
}

const timerLog = createLogger({ service: 'orchestrator', component: 'queue-depth' });

/** Writes the queue-depth line the alerts read; a failure to read it is logged, never thrown into the timer. */
export async function reportQueueDepth(log: Logger = timerLog): Promise<QueueDepth | undefined> {
  try {
    const depth = await queueDepth();
    log.info(QUEUE_DEPTH_MESSAGE, { ...depth });
    return depth;
  } catch (error) {
    log.error('orchestrator queue depth could not be read', { error });
    return undefined;
  }
}
