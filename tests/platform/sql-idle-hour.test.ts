/**
 * A database that pauses (issue 52): an idle hour of the platform runs no SQL at all. The four
 * services run in the dev host with the database instrumented (shared/sql/db.ts `watchSql`: every
 * open of the database and every query), on a fake clock: every timer of every service fires at
 * each instant its schedule names within the hour, and every five minutes the availability probes
 * ask each service's `/health?skip=sql` (payment's asks identity's with skip=sql in turn). Serverless
 * Azure SQL pauses after 60 minutes without a connection; one query in the hour would keep it awake.
 *
 * Start-up, the bootstrap admin included (BOOTSTRAP_ADMIN_EMAIL is set), touches no SQL either: the
 * first thing the database sees is the open by the first timer pass, which finds no work and marks
 * its Table Storage marker idle. A plain `/identity/health` (without skip) and a sign-in do query,
 * which shows the instrument sees what it should.
 */
import { InvocationContext, type Timer } from '@azure/functions';
import { Cron } from 'croner';
import { SETTINGS } from '../../functions/settings';
import { allServices, functionsOf } from '../../functions/registry';
import { settingDefaults } from '../../shared/config';
import { inPlatform, resolveAppSetting, type TimerFunction } from '../../shared/functions';
import type { Clock } from '../../shared/platform';
import { watchSql, type SqlActivity } from '../../shared/sql/db';
import { startTestHost, type TestHost } from '../helpers/host';
import { signInAdmin } from '../helpers/identity';

const HOUR_START = Date.parse('2026-12-01T10:00:00Z');
const HOUR_MS = 60 * 60_000;
const PROBE_EVERY_MS = 5 * 60_000;

let at = HOUR_START - HOUR_MS;
const clock: Clock = { now: () => new Date(at) };

const TIMERS = functionsOf(allServices()).filter((fn): fn is TimerFunction => fn.kind === 'timer');
let host: TestHost;
const activity: SqlActivity[] = [];
let unwatch: () => void;

beforeAll(async () => {
  // The dev host's own schedules (real time) are off: this test fires each timer at its instants on the fake clock.
  const disabled = Object.fromEntries(TIMERS.map((fn) => [`AzureWebJobs.${fn.name}.Disabled`, 'true']));
  // SQLite, so that "the database was not opened" can be seen (a SQL Server test host migrates at start-up).
  host = await startTestHost({ clock, env: { SQL_SERVER: '', BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com', ...disabled } });
  unwatch = watchSql(host.platform, (event) => activity.push(event));
});
afterAll(async () => {
  unwatch();
  await host.stop();
});

const timerInfo: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
const fire = (fn: TimerFunction) =>
  (inPlatform(host.platform, fn) as TimerFunction).handler(timerInfo, new InvocationContext({ invocationId: `idle-hour-${at}`, functionName: fn.name }));

/** Each instant in [from, to) at which `fn`'s schedule fires. */
function firings(fn: TimerFunction, from: number, to: number): number[] {
  const cron = new Cron(resolveAppSetting(fn.schedule, { ...settingDefaults(SETTINGS), ...host.platform.settings }), { paused: true });
  const instants: number[] = [];
  for (let next = cron.nextRun(new Date(from - 1)); next && next.getTime() < to; next = cron.nextRun(next)) instants.push(next.getTime());
  cron.stop();
  return instants;
}

const probe = async (service: string) => {
  const res = await host.fetch(`/${service}/health?skip=sql`);
  return { service, status: res.status, body: (await res.json()) as { dependencies?: Record<string, unknown> } };
};

test('start-up (the bootstrap admin included) opens no database; the first timer passes do, find nothing and mark their work idle', async () => {
  expect(activity).toEqual([]);
  for (const fn of TIMERS) await fire(fn);
  at += 60_000;
  for (const fn of TIMERS) await fire(fn);
  // The first thing the database saw was the open by the first timer pass: nothing before it used SQL.
  expect(activity[0]).toEqual({ kind: 'open' });
  expect(activity.filter((a) => a.kind === 'query').length).toBeGreaterThan(0);
});

test('an hour of every timer and every probe on the fake clock runs zero queries', async () => {
  activity.length = 0;
  const events: { at: number; run: () => Promise<unknown>; what: string }[] = [];
  for (const fn of TIMERS)
    for (const instant of firings(fn, HOUR_START, HOUR_START + HOUR_MS)) events.push({ at: instant, run: () => fire(fn), what: fn.name });
  for (let instant = HOUR_START; instant < HOUR_START + HOUR_MS; instant += PROBE_EVERY_MS)
    events.push({
      at: instant,
      what: 'probes',
      run: async () => {
        const answers = await Promise.all(['identity', 'payment', 'orchestrator', 'visual'].map(probe));
        for (const answer of answers) expect({ service: answer.service, status: answer.status }).toEqual({ service: answer.service, status: 200 });
        // payment's probe checked identity (through identity's /health?skip=sql), not SQL.
        expect(answers.find((a) => a.service === 'payment')!.body.dependencies).toHaveProperty('identity');
      },
    });
  events.sort((a, b) => a.at - b.at);
  const ran = new Map<string, number>();
  for (const event of events) {
    at = event.at;
    await event.run();
    ran.set(event.what, (ran.get(event.what) ?? 0) + 1);
  }
  // The per-minute timers ran every minute, the 15-minute ones 4 times, the probes 12 times.
  expect(Object.fromEntries(ran)).toEqual({
    'orchestrator-fail-stuck-executions': 60,
    'orchestrator-notify-dispatch': 60,
    'payment-sync-retry': 60,
    'payment-failed-sync-cleanup': 4,
    'visual-cache-cleanup': 4,
    probes: 12,
  });
  expect(activity).toEqual([]);
});

test("identity's daily clean-up is the one timer that uses SQL, once a day at 03:17 UTC (outside the hour), by design", () => {
  const cleanup = TIMERS.find((fn) => fn.name === 'identity-cleanup')!;
  const day = Date.parse('2026-12-01T00:00:00Z');
  expect(firings(cleanup, day, day + 24 * HOUR_MS).map((t) => new Date(t).toISOString())).toEqual(['2026-12-01T03:17:00.000Z']);
  expect(firings(cleanup, HOUR_START, HOUR_START + HOUR_MS)).toEqual([]);
});

test('the instrument sees SQL where there is some: a plain /identity/health, and a sign-in (which puts the bootstrap admin in place)', async () => {
  activity.length = 0;
  expect((await host.fetch('/identity/health')).status).toBe(200);
  expect(activity.filter((a) => a.kind === 'query').length).toBeGreaterThan(0);
  const admin = await signInAdmin(host);
  expect(admin.user).toMatchObject({ email: 'admin@example.com', role: 'super_admin' });
});
