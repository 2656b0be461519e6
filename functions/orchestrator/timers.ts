import { timers } from '../../shared/functions';
import { orchestratorContext } from './context';
import { sweepNotifications } from './notify/dispatch';
import { reportQueueDepth } from './workflow/queue-depth';
import { sweepStuckExecutions } from './workflow/stuck';

const timer = timers('orchestrator', orchestratorContext);

export const TIMERS = [
  // Every minute: fail stuck executions, then write the queue-depth line the production alerts read.
  timer('fail-stuck-executions', '0 * * * * *', async (ctx) => void (await sweepStuckExecutions(ctx).finally(() => reportQueueDepth(ctx)))),
  // Every minute: report notices (e-mail, webhook fan-out) and webhook deliveries that are due (retries with backoff).
  timer('notify-dispatch', '30 * * * * *', async (ctx) => void (await sweepNotifications(ctx))),
];
