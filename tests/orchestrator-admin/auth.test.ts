import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, type SignedIn } from '../helpers/identity';
import { HOUR, adminClient, clearOrchestratorTables, insertExecution, useFakeClock, NOW, type AdminClient } from './fixtures';
import { expectError } from '../helpers/errors';

let host: TestHost;
let client: AdminClient;
let trackingId: string;
let opsAdmin: SignedIn;

beforeAll(async () => {
  host = await startTestHost();
  useFakeClock();
  client = await adminClient(host);
  const created = await host.fetch('/identity/admin/users', {
    method: 'POST',
    headers: { ...bearer(client.adminToken), 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ops-admin@example.com', role: 'admin' }),
  });
  expect(created.status).toBe(201);
  opsAdmin = await signIn(host, 'ops-admin@example.com');
  await clearOrchestratorTables();
  trackingId = await insertExecution({});
});
afterAll(async () => {
  jest.useRealTimers();
  await host.stop();
});

const ROUTES = ['dashboard/overview', 'dashboard/failures', 'dashboard/executions', 'status/{id}', 'profiles'];
const path = (route: string) => route.replace('{id}', trackingId);

test.each(ROUTES)('%s: no token is 401 AUTH_REQUIRED', async (route) => {
  const res = await client.get(path(route), null);
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ error: 'Unauthorized', code: 'AUTH_REQUIRED', message: expect.any(String), timestamp: expect.any(String) });
});

test.each(ROUTES)('%s: a token with a forged signature is 401 AUTH_TOKEN_INVALID', async (route) => {
  const [header, payload, signature] = client.adminToken.split('.');
  const forgedPayload = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'super_admin', sub: 'someone' }),
  ).toString('base64url');
  for (const token of [`${header}.${forgedPayload}.${signature}`, `${header}.${payload}.${signature.slice(0, -4)}AAAA`, 'not-a-jwt']) {
    const res = await client.get(path(route), token);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTH_TOKEN_INVALID');
  }
});

test.each(ROUTES)('%s: a non-admin user is 403 ADMIN_REQUIRED', async (route) => {
  const res = await client.get(path(route), client.userToken);
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ error: 'Forbidden', code: 'ADMIN_REQUIRED' });
});

test.each(ROUTES)('%s: super_admin and admin are both let in', async (route) => {
  expect((await client.get(path(route))).status).toBe(200);
  expect((await client.get(path(route), opsAdmin.accessToken)).status).toBe(200);
});

test('an expired admin token is 401 AUTH_TOKEN_EXPIRED', async () => {
  useFakeClock(new Date(NOW.getTime() + 2 * HOUR));
  try {
    const res = await client.get('dashboard/overview');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTH_TOKEN_EXPIRED');
  } finally {
    useFakeClock();
  }
});

test('authentication comes before validation: a bad query without a token is 401, not 400', async () => {
  expectError(await client.get('dashboard/executions?limit=0', null), 401, 'AUTH_REQUIRED');
  expectError(await client.get('dashboard/executions?limit=0', client.userToken), 403, 'ADMIN_REQUIRED');
  expectError(await client.get('status/unknown-id', client.userToken), 403, 'ADMIN_REQUIRED');
});
