import { timer } from '../../shared/functions';
import { reportQueueDepth } from './workflow/queue-depth';
import { sweepStuckExecutions } from './workflow/stuck';

export const TIMERS = [
  // Every minute: fail stuck executions, then write the queue-depth line the production alerts read.
  timer('orchestrator', 'fail-stuck-executions', '0 * * * * *', async () => void (await sweepStuckExecutions().finally(() => reportQueueDepth()))),
];
