import { timers } from '../../shared/functions';
import { orchestratorContext } from './context';
import { reportQueueDepth } from './workflow/queue-depth';
import { sweepStuckExecutions } from './workflow/stuck';

const timer = timers('orchestrator', orchestratorContext);

export const TIMERS = [
  // Every minute: fail stuck executions, then write the queue-depth line the production alerts read.
  timer('fail-stuck-executions', '0 * * * * *', async (ctx) => void (await sweepStuckExecutions(ctx).finally(() => reportQueueDepth(ctx)))),
];
