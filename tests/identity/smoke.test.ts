import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin } from '../helpers/identity';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

test('sign in, validate, plan', async () => {
  const admin = await signInAdmin(host);
  expect(admin.user.role).toBe('super_admin');
  const user = await signIn(host, 'someone@example.com');
  const v = await host.fetch('/identity/auth/validate', { headers: bearer(user.accessToken) });
  expect(v.status).toBe(200);
  const p = await host.fetch(`/identity/admin/users/${user.user.id}/plan`, { method: 'PUT', headers: { ...bearer(admin.accessToken), 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'pro' }) });
  expect(await p.json()).toMatchObject({ plan: 'pro', status: 'active' });
});
