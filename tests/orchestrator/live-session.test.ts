import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { advanceClock } from '../identity/support';
import { ACME } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

/**
 * A token whose session ended, or whose user lost a role or changed plan, is judged by live state
 * at identity within SESSION_CHECK_CACHE_SECONDS (5 here): never by the claims it was issued with.
 */
describe('the orchestrator judges access tokens by live state at identity', () => {
  let host: TestHost;
  let superAdmin: SignedIn;
  const CACHE_MS = 5_000;

  beforeAll(async () => {
    host = await startTestHost({ env: { SESSION_CHECK_CACHE_SECONDS: '5' } });
    superAdmin = await signInAdmin(host);
  });
  afterAll(() => host.stop());
  afterEach(() => jest.useRealTimers());

  const idCall = (token: string, method: string, path: string, body?: unknown) =>
    host.fetch(`/identity${path}`, {
      method,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const submit = (token: string) =>
    host.fetch('/orchestrator/api/reports', { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify(ACME) });
  const status = (token: string, trackingId: string) => host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(token) });
  const dashboard = (token: string) => host.fetch('/orchestrator/api/admin/dashboard/overview', { headers: bearer(token) });
  const loggerTest = (token: string) => host.fetch('/orchestrator/test-workflow-logger', { method: 'POST', headers: bearer(token) });
  const code = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { code?: string }).code });
  /** Past the cache of every earlier answer. */
  const afterCache = () => advanceClock(CACHE_MS + 1_000);

  test('after logout the old token neither creates reports nor reads them', async () => {
    const user = await signIn(host, 'leaver@example.com');
    const accepted = await submit(user.accessToken);
    expect(accepted.status).toBe(202);
    const { trackingId } = (await accepted.json()) as { trackingId: string };
    expect((await idCall(user.accessToken, 'POST', '/auth/logout', {})).status).toBe(200);
    afterCache();
    expect(await code(await submit(user.accessToken))).toEqual({ status: 401, code: 'AUTH_SESSION_REVOKED' });
    expect(await code(await status(user.accessToken, trackingId))).toEqual({ status: 401, code: 'AUTH_SESSION_REVOKED' });
  });

  test('a deactivated user is refused', async () => {
    const user = await signIn(host, 'deactivated@example.com');
    expect((await submit(user.accessToken)).status).toBe(202);
    expect((await idCall(superAdmin.accessToken, 'PATCH', `/admin/users/${user.user.id}`, { status: 'inactive' })).status).toBe(200);
    afterCache();
    await expectErrorAnswer(await submit(user.accessToken), 401, 'AUTH_SESSION_REVOKED');
  });

  test("an admin whose role was removed loses the dashboard, another user's status and the test endpoints", async () => {
    const customer = await signIn(host, 'customer-of-admin@example.com');
    const { trackingId } = (await (await submit(customer.accessToken)).json()) as { trackingId: string };
    expect((await idCall(superAdmin.accessToken, 'POST', '/admin/users', { email: 'temp-admin@example.com', role: 'admin' })).status).toBe(201);
    const admin = await signIn(host, 'temp-admin@example.com');
    expect((await dashboard(admin.accessToken)).status).toBe(200);
    expect((await status(admin.accessToken, trackingId)).status).toBe(200);
    expect((await idCall(superAdmin.accessToken, 'DELETE', `/admin/users/${admin.user.id}/roles/admin`)).status).toBe(200);
    afterCache();
    for (const response of [await dashboard(admin.accessToken), await status(admin.accessToken, trackingId), await loggerTest(admin.accessToken)]) {
      await expectErrorAnswer(response, 401, 'AUTH_SESSION_REVOKED');
    }
  });

  test("the plan of a report is the user's plan now, not the one in the token", async () => {
    const user = await signIn(host, 'upgrader@example.com');
    const setPlan = (plan: string) => idCall(superAdmin.accessToken, 'PUT', `/admin/users/${user.user.id}/plan`, { plan });
    const planOfNewReport = async () => {
      const { trackingId } = (await (await submit(user.accessToken)).json()) as { trackingId: string };
      return ((await (await status(user.accessToken, trackingId)).json()) as { plan: string }).plan;
    };
    expect((await setPlan('enterprise')).status).toBe(200);
    afterCache();
    expect(await planOfNewReport()).toBe('enterprise');
    expect((await setPlan('free')).status).toBe(200);
    afterCache();
    expect(await planOfNewReport()).toBe('free');
  });

  test('identity that cannot be asked is a 503, never a grant from the token', async () => {
    const user = await signIn(host, 'outage@example.com');
    afterCache();
    host.platform.reconfigure({ IDENTITY_URL: 'http://127.0.0.1:9/identity' });
    try {
      expect(await code(await submit(user.accessToken))).toEqual({ status: 503, code: 'IDENTITY_UNAVAILABLE' });
    } finally {
      host.platform.reconfigure({ IDENTITY_URL: undefined });
    }
  });
});
