import type { HttpFunction, QueueFunction, TimerFunction } from '../../shared/functions';
import { createLogger } from '../../shared/logging';
import { enqueueJson, queue } from '../../shared/storage';
import { startTimers } from '../../devhost/timers';
import { resolveAppSetting } from '../../shared/functions';
import { startTestHost, type TestHost } from '../helpers/host';
import { waitFor } from '../helpers/wait';

const quiet = createLogger({ test: true });

describe('timer triggers', () => {
  afterEach(() => jest.useRealTimers());

  test('a six-field NCRONTAB schedule fires on its seconds, and runOnStartup fires at once', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00.500Z') });
    const fired: { name: string; at: string }[] = [];
    const timer = (name: string, schedule: string, runOnStartup = false): TimerFunction => ({
      kind: 'timer',
      name,
      schedule,
      runOnStartup,
      handler: async () => {
        fired.push({ name, at: new Date().toISOString() });
      },
    });
    const handle = startTimers([timer('every-10s', '*/10 * * * * *'), timer('hourly', '0 0 * * * *', true)], quiet, {});
    await jest.advanceTimersByTimeAsync(0);
    expect(fired).toEqual([{ name: 'hourly', at: '2026-01-01T00:00:00.500Z' }]);
    await jest.advanceTimersByTimeAsync(25_000);
    expect(fired.filter((f) => f.name === 'every-10s').map((f) => f.at.slice(11, 19))).toEqual(['00:00:10', '00:00:20']);
    await jest.advanceTimersByTimeAsync(60 * 60 * 1000);
    expect(fired.filter((f) => f.name === 'hourly').map((f) => f.at.slice(11, 19))).toEqual(['00:00:00', '01:00:00']);
    await handle.stop();
  });
});

describe('AzureWebJobs.<name>.Disabled', () => {
  const calls: string[] = [];
  const timer = (name: string): TimerFunction => ({
    kind: 'timer',
    name,
    schedule: '0 0 0 1 1 *',
    runOnStartup: true,
    handler: async () => void calls.push(name),
  });
  const http = (name: string): HttpFunction => ({ kind: 'http', name, route: `test/${name}`, methods: ['GET'], handler: async () => ({ jsonBody: { name } }) });
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({
      functions: [timer('test-timer-on'), timer('test-timer-off'), http('test-http-on'), http('test-http-off')],
      env: { 'AzureWebJobs.test-timer-off.Disabled': 'true', 'AzureWebJobs.test-http-off.Disabled': '1', 'AzureWebJobs.test-http-on.Disabled': 'false' },
    });
  });
  afterAll(() => host.stop());

  test('turns a function off, as in Azure: its timer never fires and its route is not served', async () => {
    await waitFor(async () => calls.includes('test-timer-on'), 20_000, 'the enabled timer');
    expect(calls).toEqual(['test-timer-on']);
    expect((await fetch(`${host.url}/test/test-http-on`)).status).toBe(200);
    expect((await fetch(`${host.url}/test/test-http-off`)).status).toBe(404);
  });
});

describe('storage-queue triggers', () => {
  const attempts: number[] = [];
  const handled: unknown[] = [];
  const failing: QueueFunction = {
    kind: 'queue',
    name: 'test-failing',
    queueName: 'test-failing',
    handler: async (_message, context) => {
      attempts.push(Number(context.triggerMetadata?.dequeueCount));
      throw new Error('always fails');
    },
  };
  const working: QueueFunction = {
    kind: 'queue',
    name: 'test-working',
    queueName: 'test-working',
    handler: async (message) => {
      handled.push(message);
    },
  };
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ functions: [failing, working] });
  });
  afterAll(() => host.stop());

  test('a JSON message is delivered parsed and then deleted', async () => {
    await enqueueJson('test-working', { hello: 'world', n: 1 });
    await waitFor(async () => handled.length === 1, 20_000, 'delivery');
    expect(handled[0]).toEqual({ hello: 'world', n: 1 });
    const client = await queue('test-working');
    await waitFor(async () => (await client.getProperties()).approximateMessagesCount === 0, 20_000, 'deletion');
  });

  test('a failing message is retried, then moved to <queue>-poison after its fifth dequeue', async () => {
    await enqueueJson('test-failing', { job: 'x' });
    const poison = await queue('test-failing-poison');
    await waitFor(async () => (await poison.peekMessages()).peekedMessageItems.length === 1, 20_000, 'the poison message');
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    const [moved] = (await poison.peekMessages()).peekedMessageItems;
    expect(JSON.parse(Buffer.from(moved.messageText, 'base64').toString())).toEqual({ job: 'x' });
    const source = await queue('test-failing');
    expect((await source.peekMessages()).peekedMessageItems).toHaveLength(0);
  });
});

describe('trigger properties from app settings', () => {
  test('%NAME% reads the schedule from the setting, as Azure does', () => {
    expect(resolveAppSetting('%MY_SCHEDULE%', { MY_SCHEDULE: '*/5 * * * * *' })).toBe('*/5 * * * * *');
    expect(resolveAppSetting('0 0 * * * *', {})).toBe('0 0 * * * *');
    expect(() => resolveAppSetting('%MISSING%', {})).toThrow(/MISSING is not set/);
  });
});
