/**
 * Start-up under Azure's conditions, over real HTTP: a database that does not answer yet, and a
 * secret whose Key Vault reference did not resolve.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBootstrapAdmin } from '../../functions/identity/bootstrap';
import { startTestHost } from '../helpers/host';
import { signInAdmin } from '../helpers/identity';
import { loggedDuring } from '../helpers/logs';
import { waitFor } from '../helpers/wait';

test('with SQL unavailable at start-up the host still starts, says so on health, and identity recovers (bootstrap admin included) once SQL answers', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sql-down-'));
  // The SQLite file cannot be opened while a directory stands where it belongs: every query fails.
  const blocker = path.join(dataDir, 'platform.sqlite');
  fs.mkdirSync(path.join(blocker, 'in-the-way'), { recursive: true });
  const lines: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
    lines.push(String(chunk));
    return true;
  });
  const host = await startTestHost({ env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' } }).finally(() => spy.mockRestore());
  try {
    expect(lines.join('')).toMatch(/"level":"warn".*"component":"bootstrap".*"attempt":1.*"msg":"bootstrap admin not ready yet; will retry"/);
    const down = await host.fetch('/identity/health');
    expect(down.status).toBe(503);
    expect(((await down.json()) as any).dependencies.sql).toMatchObject({ ok: false, error: expect.stringMatching(/unable to open database file|directory/i) });

    // SQL comes back: the next retry creates the bootstrap super admin, and sign-in works.
    fs.rmSync(blocker, { recursive: true });
    await waitFor(async () => (await host.fetch('/identity/health')).status === 200, 20_000, 'identity health 200');
    const admin = await waitFor(
      () => signInAdmin(host).then((signedIn) => (signedIn.user.role === 'super_admin' ? signedIn : undefined)),
      20_000,
      'the bootstrap admin',
    );
    expect(admin.user).toMatchObject({ email: 'admin@example.com', role: 'super_admin', status: 'active' });
  } finally {
    await host.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the bootstrap retries back off exponentially (full jitter, 1 s doubling to 30 s) and stop() ends them', async () => {
  jest.useFakeTimers();
  try {
    const calls: number[] = [];
    let failures = 7;
    const { lines } = await loggedDuring(async () => {
      const task = startBootstrapAdmin(
        async () => {
          calls.push(Date.now());
          if (failures-- > 0) throw new Error('Login failed: database is resuming');
        },
        () => 1, // the top of each jitter window
      );
      await task.firstAttempt;
      for (let i = 0; i < 8; i++) await jest.advanceTimersByTimeAsync(30_000);
      await task.done;
    });
    const gaps = calls.slice(1).map((t, i) => t - calls[i]);
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    // Each failure is one warning saying which attempt failed, why, and when the next comes.
    const warnings = lines.filter((line) => line.component === 'bootstrap');
    expect(warnings.map(({ level, msg, attempt, retryInMs }) => ({ level, msg, attempt, retryInMs }))).toEqual(
      gaps.map((retryInMs, i) => ({ level: 'warn', msg: 'bootstrap admin not ready yet; will retry', attempt: i + 1, retryInMs })),
    );
    expect(JSON.stringify(warnings[0].error)).toContain('Login failed: database is resuming');

    const stopped = startBootstrapAdmin(async () => {
      throw new Error('still down');
    });
    const silence = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await stopped.firstAttempt;
    stopped.stop();
    await stopped.done; // settles at once, no timer left behind
    silence.mockRestore();
    expect(jest.getTimerCount()).toBe(0);
  } finally {
    jest.useRealTimers();
  }
});

test('a Key Vault reference that did not resolve stops only the services that read it; their health routes say which setting', async () => {
  const host = await startTestHost({ env: { VISUAL_API_TOKEN: '@Microsoft.KeyVault(SecretUri=https://kv-x.vault.azure.net/secrets/visual-api-token/)' } });
  try {
    // VISUAL_API_TOKEN is read by the orchestrator and the visual service: both stopped.
    for (const service of ['orchestrator', 'visual']) {
      const res = await host.fetch(`/${service}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        service,
        status: 'stopped',
        problems: [expect.stringContaining('VISUAL_API_TOKEN is an unresolved Key Vault reference')],
      });
    }
    const render = await host.fetch('/visual/api/v1/charts/render', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(render.status).toBe(503);
    expect(await render.json()).toMatchObject({ code: 'SERVICE_MISCONFIGURED', message: expect.stringContaining('VISUAL_API_TOKEN') });
    // Identity and payment run on.
    expect((await host.fetch('/identity/health')).status).toBe(200);
    const admin = await signInAdmin(host);
    expect(admin.user.role).toBe('super_admin');
    expect((await host.fetch('/payment/plans')).status).toBe(200);
  } finally {
    await host.stop();
  }
});
