import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin } from '../helpers/identity';
import { auditEntries, call } from './support';

/**
 * BOOTSTRAP_ADMIN_EMAIL names an address that already has an account with another role (here a
 * deactivated user): identity starting up promotes it to super_admin and reactivates it. Two hosts
 * share one database, as two deployments of identity would: the first makes the account, the
 * second starts with the setting naming it.
 */
let first: TestHost;
let second: TestHost | undefined;
beforeAll(async () => {
  first = await startTestHost({ env: { SERVICES: 'identity' } });
});
afterAll(async () => {
  await second?.stop();
  await first.stop();
});

test('an existing deactivated user named by BOOTSTRAP_ADMIN_EMAIL is promoted to super_admin and reactivated at start-up', async () => {
  const admin = await signInAdmin(first);
  const boss = await signIn(first, 'boss@example.com');
  expect(boss.user).toMatchObject({ role: 'user', status: 'active' });
  const deactivated = await call(first, 'PATCH', `/admin/users/${boss.user.id}`, { token: admin.accessToken, body: { status: 'inactive' } });
  expect(deactivated.body.user).toMatchObject({ status: 'inactive' });

  // The same database (SQLite file under DATA_DIR, or the SQL Server database of the first host).
  const database = first.platform.settings.SQL_DATABASE;
  second = await startTestHost({
    env: { SERVICES: 'identity', DATA_DIR: first.dataDir, BOOTSTRAP_ADMIN_EMAIL: 'Boss@Example.com', ...(database ? { SQL_DATABASE: database } : {}) },
  });

  const promoted = await signIn(second, 'boss@example.com');
  expect(promoted.user).toMatchObject({ id: boss.user.id, email: 'boss@example.com', role: 'super_admin', status: 'active' });
  expect((await call(second, 'GET', '/admin/users', { token: promoted.accessToken })).status).toBe(200);
  const [grant] = await auditEntries(second, promoted.accessToken, { target: boss.user.id, action: 'role.grant' });
  expect(grant).toMatchObject({ actor: { type: 'system', id: 'bootstrap' }, result: 'success', details: { from: 'user', to: 'super_admin' } });
});
