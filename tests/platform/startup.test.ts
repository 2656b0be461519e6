/**
 * Start-up under Azure's conditions, over real HTTP: a database that does not answer yet, and a
 * secret whose Key Vault reference did not resolve.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestHost } from '../helpers/host';
import { signInAdmin } from '../helpers/identity';
import { waitFor } from '../helpers/wait';

test('with SQL unavailable at start-up the host still starts (start-up touches no SQL), says so on health, and identity recovers (bootstrap admin included) once SQL answers', async () => {
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
    // Start-up did not try the database: the bootstrap admin waits for the first sign-in.
    expect(lines.join('')).not.toMatch(/bootstrap/);
    const down = await host.fetch('/identity/health');
    expect(down.status).toBe(503);
    expect(((await down.json()) as any).dependencies.sql).toMatchObject({ ok: false, error: expect.stringMatching(/unable to open database file|directory/i) });

    // SQL comes back: the first sign-in puts the bootstrap super admin in place, and signs in.
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
