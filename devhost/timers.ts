import { randomUUID } from 'node:crypto';
import { InvocationContext, type Timer } from '@azure/functions';
import { Cron } from 'croner';
import type { TimerFunction } from '../shared/functions';
import type { Logger } from '../shared/logging';

/** As in Azure, a schedule written `%NAME%` is read from the app setting NAME. */
export function resolveSchedule(schedule: string, env: NodeJS.ProcessEnv = process.env): string {
  const m = /^%([A-Za-z0-9_]+)%$/.exec(schedule.trim());
  if (!m) return schedule;
  const value = env[m[1]];
  if (!value) throw new Error(`Timer schedule ${schedule}: app setting ${m[1]} is not set`);
  return value;
}

export interface TimerHandle {
  stop(): Promise<void>;
}

/**
 * Schedules timer functions on six-field NCRONTAB (croner reads the seconds field), or `%SETTING%`. As in Azure,
 * a run that is still going when the next is due is skipped (one run at a time per function),
 * and `runOnStartup` fires once immediately.
 */
export function startTimers(functions: TimerFunction[], log: Logger): TimerHandle {
  const running = new Set<Promise<void>>();
  const jobs = functions.map((fn) => {
    const invoke = (isPastDue: boolean) => {
      const timer: Timer = { isPastDue, schedule: { adjustForDST: false }, scheduleStatus: { last: new Date().toISOString(), next: job.nextRun()?.toISOString() ?? '', lastUpdated: new Date().toISOString() } };
      const context = new InvocationContext({ invocationId: randomUUID(), functionName: fn.name });
      const run = fn.handler(timer, context).catch((error) => log.error('timer function failed', { function: fn.name, error }));
      running.add(run);
      return run.finally(() => running.delete(run));
    };
    const job: Cron = new Cron(resolveSchedule(fn.schedule), { protect: true, catch: true }, () => invoke(false));
    if (fn.runOnStartup) void invoke(false);
    return job;
  });
  return {
    async stop() {
      jobs.forEach((job) => job.stop());
      await Promise.allSettled([...running]);
    },
  };
}
