import { randomUUID } from 'node:crypto';
import { InvocationContext, type Timer } from '@azure/functions';
import { Cron } from 'croner';
import { resolveAppSetting, type TimerFunction } from '../shared/functions';
import { settingDefaults } from '../shared/config';
import { SETTINGS } from '../functions/settings';
import type { Logger } from '../shared/logging';

export interface TimerHandle {
  stop(): Promise<void>;
}

/**
 * Schedules timer functions on six-field NCRONTAB (croner reads the seconds field), or `%SETTING%`. As in Azure,
 * a run that is still going when the next is due is skipped (one run at a time per function),
 * and `runOnStartup` fires once immediately.
 */
export function startTimers(functions: TimerFunction[], log: Logger, settings: Readonly<Record<string, string | undefined>>): TimerHandle {
  const running = new Set<Promise<void>>();
  const jobs = functions.map((fn) => {
    const invoke = (isPastDue: boolean) => {
      const timer: Timer = {
        isPastDue,
        schedule: { adjustForDST: false },
        scheduleStatus: { last: new Date().toISOString(), next: job.nextRun()?.toISOString() ?? '', lastUpdated: new Date().toISOString() },
      };
      const context = new InvocationContext({ invocationId: randomUUID(), functionName: fn.name });
      const run = fn.handler(timer, context).catch((error) => log.error('timer function failed', { function: fn.name, error }));
      running.add(run);
      return run.finally(() => running.delete(run));
    };
    const job: Cron = new Cron(resolveAppSetting(fn.schedule, { ...settingDefaults(SETTINGS), ...settings }), { protect: true, catch: true }, () =>
      invoke(false),
    );
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
