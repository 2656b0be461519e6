import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { advanceClock, auditEntries, call, expectError } from './support';

let host: TestHost;
let superAdmin: SignedIn;
let admin: SignedIn;
let user: SignedIn;

beforeAll(async () => {
  host = await startTestHost();
  superAdmin = await signInAdmin(host);
  const created = await call(host, 'POST', '/admin/users', { token: superAdmin.accessToken, body: { email: 'ops@example.com', role: 'admin' } });
  expect(created.status).toBe(201);
  admin = await signIn(host, 'ops@example.com');
  user = await signIn(host, 'plain@example.com');
});
afterAll(() => host.stop());
afterEach(() => jest.useRealTimers());

const as = (who: SignedIn, method: string, path: string, body?: unknown) => call(host, method, path, { token: who.accessToken, body });

describe('authorisation', () => {
  test.each([
    ['GET', '/admin/users'],
    ['POST', '/admin/users'],
    ['GET', '/admin/users/x'],
    ['PATCH', '/admin/users/x'],
    ['DELETE', '/admin/users/x'],
    ['POST', '/admin/users/x/roles'],
    ['DELETE', '/admin/users/x/roles/admin'],
    ['GET', '/admin/roles/user/permissions'],
    ['GET', '/admin/audit'],
    ['GET', '/admin/sessions'],
    ['DELETE', '/admin/sessions/x'],
    ['GET', '/admin/compliance'],
  ])('%s %s: 401 without a token, 403 for a user JWT', async (method, path) => {
    expectError(await call(host, method, path, { body: method === 'POST' || method === 'PATCH' ? {} : undefined }), 401, 'AUTH_REQUIRED');
    expectError(await as(user, method, path, method === 'POST' || method === 'PATCH' ? {} : undefined), 403, 'ADMIN_REQUIRED');
  });

  test('a refused user is audited', async () => {
    await as(user, 'GET', '/admin/compliance');
    const [entry] = await auditEntries(host, admin.accessToken, { actor: user.user.id, action: 'compliance.read' });
    expect(entry).toMatchObject({ actor: { type: 'user', id: user.user.id }, result: 'failure', reason: 'ADMIN_REQUIRED' });
  });
});

describe('users', () => {
  test('create (201), read, and the role rules', async () => {
    const res = await as(admin, 'POST', '/admin/users', { email: 'Analyst@Example.com', role: 'user', permissions: ['admin:audit:read'] });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.user).toMatchObject({
      email: 'analyst@example.com',
      role: 'user',
      plan: 'free',
      status: 'active',
      explicitPermissions: ['admin:audit:read'],
    });
    expect(res.body.user.permissions).toEqual(expect.arrayContaining(['reports:read', 'admin:audit:read']));
    const read = await as(admin, 'GET', `/admin/users/${res.body.user.id}`);
    expect(read.body.user).toEqual(res.body.user);
    // The audit names what was created: the address as stored, the role, the explicit permissions.
    const [created] = await auditEntries(host, admin.accessToken, { target: res.body.user.id });
    expect(created).toMatchObject({
      actor: { type: 'admin', id: admin.user.id },
      action: 'user.create',
      target: { type: 'user', id: res.body.user.id },
      result: 'success',
      details: { email: 'analyst@example.com', role: 'user', permissions: ['admin:audit:read'] },
    });
    expectError(await as(admin, 'POST', '/admin/users', { email: 'analyst@example.com' }), 409, 'USER_EXISTS');
    expectError(await as(admin, 'POST', '/admin/users', { email: 'boss2@example.com', role: 'admin' }), 403, 'SUPER_ADMIN_REQUIRED');
    expectError(
      await as(admin, 'POST', '/admin/users', { email: 'boss3@example.com', permissions: ['admin:roles:grant-privileged'] }),
      403,
      'PERMISSION_ESCALATION',
    );
    expectError(await as(admin, 'POST', '/admin/users', { email: 'x@example.com', role: 'wizard' }), 400, 'ROLE_UNKNOWN');
    const made = await as(superAdmin, 'POST', '/admin/users', { email: 'second-admin@example.com', role: 'admin' });
    expect(made.status).toBe(201);
  });

  test('an address in capitals is the same address: refused as a duplicate in lower case, audited so; renaming a user to their own address in capitals is no conflict', async () => {
    const made = await as(admin, 'POST', '/admin/users', { email: 'casey@example.com' });
    expect(made.status).toBe(201);
    const again = await as(admin, 'POST', '/admin/users', { email: 'CASEY@Example.com' });
    expectError(again, 409, 'USER_EXISTS');
    expect(again.body.message).toBe('A user with email casey@example.com already exists');
    const [refused] = await auditEntries(host, admin.accessToken, { action: 'user.create', result: 'failure', target: 'casey@example.com' });
    expect(refused).toMatchObject({ target: { type: 'email', id: 'casey@example.com' }, reason: 'USER_EXISTS' });

    const renamed = await as(admin, 'PATCH', `/admin/users/${made.body.user.id}`, { email: 'Casey@EXAMPLE.com' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.user.email).toBe('casey@example.com');
    const taken = await as(admin, 'PATCH', `/admin/users/${user.user.id}`, { email: 'CASEY@example.com' });
    expectError(taken, 409, 'USER_EXISTS');
    expect(taken.body.message).toBe('A user with email casey@example.com already exists');
  });

  test('create refuses malformed JSON, wrong types and unknown fields', async () => {
    expectError(await call(host, 'POST', '/admin/users', { token: admin.accessToken, raw: '{"email"' }), 400, 'INVALID_JSON');
    expectError(await as(admin, 'POST', '/admin/users', { email: ['a@example.com'] }), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'POST', '/admin/users', { email: 'a@example.com', permissions: 'all' }), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'POST', '/admin/users', { email: 'a@example.com', plan: 'pro' }), 400, 'VALIDATION_FAILED');
  });

  test('list pages and filters by email, role, plan and status', async () => {
    for (let i = 0; i < 5; i++) await as(admin, 'POST', '/admin/users', { email: `page${i}@list.example` });
    const first = await as(admin, 'GET', '/admin/users?email=list.example&limit=2');
    expect(first.body).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(first.body.users.map((u: any) => u.email)).toEqual(['page0@list.example', 'page1@list.example']);
    const last = await as(admin, 'GET', '/admin/users?email=list.example&limit=2&offset=4');
    expect(last.body.users.map((u: any) => u.email)).toEqual(['page4@list.example']);
    const admins = await as(admin, 'GET', '/admin/users?role=super_admin');
    expect(admins.body.users.map((u: any) => u.email)).toEqual(['admin@example.com']);
    await as(admin, 'PATCH', `/admin/users/${last.body.users[0].id}`, { plan: 'enterprise', status: 'inactive' });
    const filtered = await as(admin, 'GET', '/admin/users?plan=enterprise&status=inactive');
    expect(filtered.body.users.map((u: any) => u.email)).toEqual(['page4@list.example']);
    expect((await as(admin, 'GET', '/admin/users?email=%25')).body.total).toBe(0);
    expectError(await as(admin, 'GET', '/admin/users?limit=500'), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'GET', '/admin/users?limit=abc'), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'GET', '/admin/users?plan=gold'), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'GET', '/admin/users?sort=email'), 400, 'VALIDATION_FAILED');
  });

  test('patch changes fields; deactivating ends sessions; unknown ids 404', async () => {
    const target = await signIn(host, 'patched@example.com');
    const res = await as(admin, 'PATCH', `/admin/users/${target.user.id}`, { status: 'inactive', plan: 'pro' });
    expect(res.body.user).toMatchObject({ status: 'inactive', plan: 'pro' });
    // The session itself is revoked, not only refused while the user is inactive: reactivating
    // the user must not bring the old tokens back.
    expectError(await call(host, 'GET', '/auth/validate', { token: target.accessToken }), 401, 'AUTH_SESSION_REVOKED');
    const reactivated = await as(admin, 'PATCH', `/admin/users/${target.user.id}`, { status: 'active' });
    expect(reactivated.body.user).toMatchObject({ status: 'active' });
    expectError(await call(host, 'GET', '/auth/validate', { token: target.accessToken }), 401, 'AUTH_SESSION_REVOKED');
    expectError(await call(host, 'POST', '/auth/refresh', { body: { refreshToken: target.refreshToken } }), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await as(admin, 'PATCH', `/admin/users/${target.user.id}`, {}), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'PATCH', `/admin/users/${target.user.id}`, { role: 'admin' }), 400, 'VALIDATION_FAILED');
    expectError(await as(admin, 'PATCH', `/admin/users/${target.user.id}`, { email: 'plain@example.com' }), 409, 'USER_EXISTS');
    expectError(await as(admin, 'PATCH', '/admin/users/nope', { plan: 'pro' }), 404, 'USER_NOT_FOUND');
    expectError(await as(admin, 'GET', '/admin/users/nope'), 404, 'USER_NOT_FOUND');
    expectError(await as(admin, 'PATCH', `/admin/users/${superAdmin.user.id}`, { plan: 'pro' }), 403, 'SUPER_ADMIN_REQUIRED');
    expectError(await as(superAdmin, 'PATCH', `/admin/users/${superAdmin.user.id}`, { status: 'inactive' }), 409, 'CANNOT_DEACTIVATE_SELF');
  });

  test('patch writes the fields it names and only those: a new address and permissions, then a plan alone keeps both', async () => {
    const target = await signIn(host, 'renamed@example.com');
    const renamed = await as(admin, 'PATCH', `/admin/users/${target.user.id}`, {
      email: 'Renamed.Later@Example.com',
      permissions: ['admin:sessions:read', 'admin:audit:read'],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.success).toBe(true);
    // Permissions are kept sorted, so equal sets read back equal.
    expect(renamed.body.user).toMatchObject({ email: 'renamed.later@example.com', explicitPermissions: ['admin:audit:read', 'admin:sessions:read'] });
    const planOnly = await as(admin, 'PATCH', `/admin/users/${target.user.id}`, { plan: 'pro' });
    expect(planOnly.body.user).toMatchObject({
      email: 'renamed.later@example.com',
      role: 'user',
      plan: 'pro',
      status: 'active',
      explicitPermissions: ['admin:audit:read', 'admin:sessions:read'],
    });
    expect((await as(admin, 'GET', `/admin/users/${target.user.id}`)).body.user).toEqual(planOnly.body.user);
    // The search forgives spaces around what was typed, as the address itself does.
    const found = await as(admin, 'GET', `/admin/users?email=${encodeURIComponent('  renamed.later ')}`);
    expect(found.body.users.map((u: any) => u.id)).toEqual([target.user.id]);
  });

  test('a super_admin changes their own plan, and deactivates a super_admin who is not the last', async () => {
    // Only a deactivation is checked against the actor and the last super_admin.
    const own = await as(superAdmin, 'PATCH', `/admin/users/${superAdmin.user.id}`, { plan: 'enterprise' });
    expect(own.status).toBe(200);
    expect(own.body.user).toMatchObject({ id: superAdmin.user.id, plan: 'enterprise', status: 'active' });
    const deputy = await signIn(host, 'deputy@example.com');
    expect((await as(superAdmin, 'POST', `/admin/users/${deputy.user.id}/roles`, { roleId: 'super_admin' })).status).toBe(200);
    const deactivated = await as(superAdmin, 'PATCH', `/admin/users/${deputy.user.id}`, { status: 'inactive' });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.user).toMatchObject({ role: 'super_admin', status: 'inactive' });
    expect((await as(superAdmin, 'DELETE', `/admin/users/${deputy.user.id}`)).status).toBe(200);
  });

  test('delete revokes sessions first, then removes the user (hard delete), audited', async () => {
    const target = await signIn(host, 'leaving@example.com');
    const res = await as(admin, 'DELETE', `/admin/users/${target.user.id}`);
    expect(res.body).toEqual({ success: true, userId: target.user.id, deleted: 'hard', revokedSessions: 1 });
    expectError(await as(admin, 'GET', `/admin/users/${target.user.id}`), 404, 'USER_NOT_FOUND');
    expectError(await as(admin, 'DELETE', `/admin/users/${target.user.id}`), 404, 'USER_NOT_FOUND');
    const sessions = await as(admin, 'GET', `/admin/sessions?userId=${target.user.id}&state=all`);
    expect(sessions.body.sessions[0]).toMatchObject({ active: false, revokedReason: 'user_deleted' });
    const [entry] = await auditEntries(host, admin.accessToken, { target: target.user.id, action: 'user.delete', result: 'success' });
    expect(entry).toMatchObject({
      actor: { type: 'admin', id: admin.user.id },
      result: 'success',
      details: { email: 'leaving@example.com', revokedSessions: 1 },
    });
    expectError(await as(admin, 'DELETE', `/admin/users/${admin.user.id}`), 409, 'CANNOT_DELETE_SELF');
    expectError(await as(admin, 'DELETE', `/admin/users/${superAdmin.user.id}`), 403, 'SUPER_ADMIN_REQUIRED');
  });
});

describe('roles', () => {
  test('role permissions are listed; unknown roles 404', async () => {
    const res = await as(admin, 'GET', '/admin/roles/admin/permissions');
    expect(res.body).toMatchObject({ role: 'admin', permissions: expect.arrayContaining(['admin:users:update', 'admin:audit:read']) });
    expect(res.body.permissions).not.toContain('admin:roles:grant-privileged');
    expect((await as(admin, 'GET', '/admin/roles/super_admin/permissions')).body.permissions).toContain('admin:roles:grant-privileged');
    const unknownRole = await as(admin, 'GET', '/admin/roles/wizard/permissions');
    expectError(unknownRole, 404, 'ROLE_NOT_FOUND');
    expect(unknownRole.body.message).toBe('No role has id wizard');
    expect((await as(admin, 'GET', '/admin/roles')).body.roles.map((r: any) => r.id)).toEqual(['user', 'admin', 'super_admin']);
  });

  test('only a super_admin grants or removes admin; a change ends the sessions of the user', async () => {
    const target = await signIn(host, 'promoted@example.com');
    expectError(await as(admin, 'POST', `/admin/users/${target.user.id}/roles`, { roleId: 'admin' }), 403, 'SUPER_ADMIN_REQUIRED');
    expectError(await as(admin, 'POST', `/admin/users/${target.user.id}/roles`, { roleId: 'super_admin' }), 403, 'SUPER_ADMIN_REQUIRED');
    const granted = await as(superAdmin, 'POST', `/admin/users/${target.user.id}/roles`, { roleId: 'admin' });
    expect(granted.body).toMatchObject({ success: true, changed: true, user: { role: 'admin' } });
    expectError(await call(host, 'GET', '/auth/validate', { token: target.accessToken }), 401, 'AUTH_SESSION_REVOKED');
    const again = await signIn(host, 'promoted@example.com');
    expect(again.user.role).toBe('admin');
    expect((await as(again, 'GET', '/admin/users')).status).toBe(200);
    expectError(await as(admin, 'DELETE', `/admin/users/${target.user.id}/roles/admin`), 403, 'SUPER_ADMIN_REQUIRED');
    const revoked = await as(superAdmin, 'DELETE', `/admin/users/${target.user.id}/roles/admin`);
    expect(revoked.body).toMatchObject({ success: true, changed: true, user: { role: 'user' } });
    expectError(await as(again, 'GET', '/admin/users'), 401, 'AUTH_SESSION_REVOKED');
    const entries = await auditEntries(host, admin.accessToken, { target: target.user.id });
    expect(entries.filter((e) => e.action.startsWith('role.')).map((e) => [e.action, e.result, e.reason])).toEqual([
      ['role.revoke', 'success', null],
      ['role.revoke', 'failure', 'SUPER_ADMIN_REQUIRED'],
      ['role.grant', 'success', null],
      ['role.grant', 'failure', 'SUPER_ADMIN_REQUIRED'],
      ['role.grant', 'failure', 'SUPER_ADMIN_REQUIRED'],
    ]);
  });

  test('grant and revoke validate ids and bodies', async () => {
    expectError(await as(superAdmin, 'POST', '/admin/users/nope/roles', { roleId: 'admin' }), 404, 'USER_NOT_FOUND');
    expectError(await as(superAdmin, 'POST', `/admin/users/${user.user.id}/roles`, { roleId: 'wizard' }), 400, 'ROLE_UNKNOWN');
    expectError(await as(superAdmin, 'POST', `/admin/users/${user.user.id}/roles`, { role: 'admin' }), 400, 'VALIDATION_FAILED');
    expectError(await as(superAdmin, 'DELETE', `/admin/users/${user.user.id}/roles/wizard`), 404, 'ROLE_NOT_FOUND');
    expectError(await as(superAdmin, 'DELETE', `/admin/users/${user.user.id}/roles/admin`), 404, 'ROLE_NOT_ASSIGNED');
    expectError(await as(superAdmin, 'DELETE', `/admin/users/${user.user.id}/roles/user`), 409, 'BASE_ROLE');
    expectError(await as(superAdmin, 'DELETE', `/admin/users/${superAdmin.user.id}/roles/super_admin`), 409, 'LAST_SUPER_ADMIN');
    const same = await as(superAdmin, 'POST', `/admin/users/${user.user.id}/roles`, { roleId: 'user' });
    expect(same.body).toMatchObject({ changed: false });
  });
});

describe('sessions', () => {
  test('list active sessions of a user and revoke one', async () => {
    const a = await signIn(host, 'sessions@example.com');
    const b = await signIn(host, 'sessions@example.com');
    const list = await as(admin, 'GET', `/admin/sessions?userId=${a.user.id}`);
    expect(list.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(list.body.sessions[0]).toMatchObject({ userId: a.user.id, active: true, ip: expect.any(String), createdAt: expect.any(String) });
    const sidA = (await call(host, 'GET', '/auth/validate', { token: a.accessToken })).body.sessionId;
    const res = await as(admin, 'DELETE', `/admin/sessions/${sidA}`);
    expect(res.body).toEqual({ success: true, sessionId: sidA, userId: a.user.id, revoked: true });
    expectError(await call(host, 'GET', '/auth/validate', { token: a.accessToken }), 401, 'AUTH_SESSION_REVOKED');
    expect((await call(host, 'GET', '/auth/validate', { token: b.accessToken })).status).toBe(200);
    expect((await as(admin, 'GET', `/admin/sessions?userId=${a.user.id}`)).body.total).toBe(1);
    expect((await as(admin, 'GET', `/admin/sessions?userId=${a.user.id}&state=all`)).body.total).toBe(2);
    expectError(await as(admin, 'DELETE', '/admin/sessions/nope'), 404, 'SESSION_NOT_FOUND');
    expectError(await as(admin, 'GET', '/admin/sessions?state=maybe'), 400, 'VALIDATION_FAILED');
    // Ending it again changes nothing and says so.
    const again = await as(admin, 'DELETE', `/admin/sessions/${sidA}`);
    expect(again.body).toEqual({ success: true, sessionId: sidA, userId: a.user.id, revoked: false });
    const entries = await auditEntries(host, admin.accessToken, { target: sidA, action: 'session.revoke' });
    expect(entries.map((e) => [e.actor, e.details])).toEqual([
      [
        { type: 'admin', id: admin.user.id },
        { userId: a.user.id, alreadyRevoked: true },
      ],
      [
        { type: 'admin', id: admin.user.id },
        { userId: a.user.id, alreadyRevoked: false },
      ],
    ]);
  });

  test('a session is active until the instant it expires (30 days after sign-in), then listed only with state=all', async () => {
    advanceClock(0); // the clock stands still from here
    const user = await signIn(host, 'expiring@example.com');
    advanceClock(30 * 24 * 3600_000 - 1);
    // Read as the super_admin, signed in again (every earlier token has long expired), not as the
    // suite's admin, whose last sign-in the dormant-admin check counts on.
    const reader = await signInAdmin(host);
    const before = await as(reader, 'GET', `/admin/sessions?userId=${user.user.id}`);
    expect(before.body.sessions).toEqual([expect.objectContaining({ active: true })]);
    advanceClock(1);
    expect((await as(reader, 'GET', `/admin/sessions?userId=${user.user.id}`)).body).toMatchObject({ total: 0, sessions: [] });
    const all = await as(reader, 'GET', `/admin/sessions?userId=${user.user.id}&state=all`);
    expect(all.body.sessions).toEqual([expect.objectContaining({ active: false, revokedAt: null, expiresAt: new Date(Date.now()).toISOString() })]);
  });
});

describe('audit', () => {
  test('filters by actor, action, target, result and time, newest first, with paging', async () => {
    const all = await call(host, 'GET', '/admin/audit?limit=3', { token: admin.accessToken });
    expect(all.body).toMatchObject({ limit: 3, offset: 0, total: expect.any(Number) });
    expect(all.body.entries).toHaveLength(3);
    const ids = all.body.entries.map((e: any) => e.id);
    expect([...ids].sort((x: number, y: number) => y - x)).toEqual(ids);
    const next = await call(host, 'GET', '/admin/audit?limit=3&offset=3', { token: admin.accessToken });
    expect(next.body.entries[0].id).toBeLessThan(ids[2]);
    const logins = await auditEntries(host, admin.accessToken, { action: 'auth.login', limit: '100' });
    expect(logins.length).toBeGreaterThan(3);
    expect(logins.every((e) => e.action === 'auth.login')).toBe(true);
    const since = logins[1].timestamp;
    const recent = await auditEntries(host, admin.accessToken, { action: 'auth.login', since, limit: '100' });
    expect(recent.every((e) => e.timestamp >= since)).toBe(true);
    const until = await auditEntries(host, admin.accessToken, { action: 'auth.login', until: since, limit: '100' });
    expect(until.every((e) => e.timestamp < since)).toBe(true);
    expect(recent.length + until.length).toBe(logins.length);
    expectError(await call(host, 'GET', '/admin/audit?since=yesterday', { token: admin.accessToken }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'GET', '/admin/audit?result=maybe', { token: admin.accessToken }), 400, 'VALIDATION_FAILED');
    // A window that ends before it starts is a mistake worth naming; one instant wide is merely empty.
    const backwards = await call(host, 'GET', `/admin/audit?since=${since}&until=2000-01-01T00:00:00.000Z`, { token: admin.accessToken });
    expectError(backwards, 400, 'VALIDATION_FAILED');
    expect(backwards.body.message).toBe('Invalid query: since is after until');
    const instant = await call(host, 'GET', `/admin/audit?since=${since}&until=${since}`, { token: admin.accessToken });
    expect(instant.body).toMatchObject({ entries: [], total: 0 });
  });
});

describe('compliance', () => {
  test('reports users, OTP policy against NIST SP 800-63B, keys, sessions, retention and admins', async () => {
    const res = await as(admin, 'GET', '/admin/compliance');
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.users.total).toBe(r.users.byStatus.active + (r.users.byStatus.inactive ?? 0));
    expect(r.users.byRole.super_admin).toBe(1);
    expect(r.otpPolicy).toMatchObject({ codeLength: 6, ttlSeconds: 600, maxAttemptsPerCode: 5, resendCooldownSeconds: 60, compliant: true });
    expect(r.otpPolicy.nist80063b.length).toBeGreaterThanOrEqual(5);
    expect(r.tokens.signingKeys[0]).toMatchObject({ alg: 'ES256', signing: true, ageDays: 0, rotationDue: false });
    expect(r.sessions).toMatchObject({ active: expect.any(Number), olderThanPolicy: 0 });
    expect(r.audit).toMatchObject({ retentionDays: 400, withinRetention: true, entries: expect.any(Number) });
    expect(r.admins.list.map((a: any) => a.email)).toEqual(expect.arrayContaining(['admin@example.com', 'ops@example.com']));
    expect(r.admins.inactive.map((a: any) => a.email)).not.toContain('admin@example.com');
    expect(r.admins.inactive.map((a: any) => a.email)).toEqual([]);
  });

  test('lists admins without a sign-in for 90 days', async () => {
    await as(superAdmin, 'POST', '/admin/users', { email: 'dormant-admin@example.com', role: 'admin' });
    advanceClock(91 * 24 * 3600_000);
    const fresh = await signInAdmin(host);
    const r = (await as(fresh, 'GET', '/admin/compliance')).body;
    expect(r.admins.inactive.map((a: any) => a.email)).toEqual(expect.arrayContaining(['dormant-admin@example.com', 'ops@example.com']));
    expect(r.admins.inactive.map((a: any) => a.email)).not.toContain('admin@example.com');
    expect(r.sessions.olderThanPolicy).toBeGreaterThan(0);
  });
});

test('each refusal of user administration says what is wrong, word for word, and is audited as the change it refused', async () => {
  const refusals: [SignedIn, string, string, unknown][] = [
    [admin, 'GET', '/admin/users/nope', undefined],
    [admin, 'PATCH', `/admin/users/${superAdmin.user.id}`, { plan: 'pro' }],
    [superAdmin, 'PATCH', `/admin/users/${superAdmin.user.id}`, { status: 'inactive' }],
    [admin, 'POST', '/admin/users', { email: 'escalate@example.com', permissions: ['admin:roles:grant-privileged'] }],
    [superAdmin, 'DELETE', `/admin/users/${superAdmin.user.id}/roles/super_admin`, undefined],
    [admin, 'POST', '/admin/users', { email: 'wizard@example.com', role: 'wizard' }],
    [admin, 'POST', '/admin/users', { email: 'boss@example.com', role: 'admin' }],
    [superAdmin, 'DELETE', `/admin/users/${superAdmin.user.id}`, undefined],
    [superAdmin, 'POST', `/admin/users/${user.user.id}/roles`, { roleId: 'wizard' }],
    [admin, 'POST', `/admin/users/${user.user.id}/roles`, { roleId: 'super_admin' }],
    [superAdmin, 'DELETE', `/admin/users/${user.user.id}/roles/wizard`, undefined],
    [superAdmin, 'DELETE', `/admin/users/${user.user.id}/roles/admin`, undefined],
    [superAdmin, 'DELETE', `/admin/users/${user.user.id}/roles/user`, undefined],
    [admin, 'DELETE', '/admin/sessions/nope', undefined],
  ];
  const answers = [];
  const since = new Date().toISOString();
  for (const [who, method, route, body] of refusals) {
    const res = await as(who, method, route, body);
    answers.push([res.status, res.body.code, res.body.message]);
  }
  expect(answers).toEqual([
    [404, 'USER_NOT_FOUND', 'No user has id nope'],
    [403, 'SUPER_ADMIN_REQUIRED', 'Only a super_admin can change a user with the super_admin role'],
    [409, 'CANNOT_DEACTIVATE_SELF', 'You cannot deactivate your own account'],
    [403, 'PERMISSION_ESCALATION', 'You cannot grant permissions you do not hold: admin:roles:grant-privileged'],
    [409, 'LAST_SUPER_ADMIN', 'This is the last active super_admin'],
    [400, 'ROLE_UNKNOWN', 'Invalid body: role wizard does not exist'],
    [403, 'SUPER_ADMIN_REQUIRED', 'Only a super_admin can create a user with the admin role'],
    [409, 'CANNOT_DELETE_SELF', 'You cannot delete your own account'],
    [400, 'ROLE_UNKNOWN', 'Invalid body: role wizard does not exist'],
    [403, 'SUPER_ADMIN_REQUIRED', 'Only a super_admin can grant the super_admin role'],
    [404, 'ROLE_NOT_FOUND', 'No role has id wizard'],
    [404, 'ROLE_NOT_ASSIGNED', 'The user does not hold the admin role'],
    [409, 'BASE_ROLE', 'Every user keeps the base user role; grant another role instead'],
    [404, 'SESSION_NOT_FOUND', 'No session has id nope'],
  ]);
  // Every refused change is in the audit trail, under the change it would have been, with the code
  // (the read of an unknown user is not a change).
  const refused = await auditEntries(host, superAdmin.accessToken, { result: 'failure', since, limit: '100' });
  const self = superAdmin.user.id;
  const other = user.user.id;
  expect(refused.reverse().map((e) => [e.actor.id, e.action, e.target.type, e.target.id, e.reason])).toEqual([
    [admin.user.id, 'user.update', 'user', self, 'SUPER_ADMIN_REQUIRED'],
    [self, 'user.update', 'user', self, 'CANNOT_DEACTIVATE_SELF'],
    [admin.user.id, 'user.create', 'email', 'escalate@example.com', 'PERMISSION_ESCALATION'],
    [self, 'role.revoke', 'user', self, 'LAST_SUPER_ADMIN'],
    [admin.user.id, 'user.create', 'email', 'wizard@example.com', 'ROLE_UNKNOWN'],
    [admin.user.id, 'user.create', 'email', 'boss@example.com', 'SUPER_ADMIN_REQUIRED'],
    [self, 'user.delete', 'user', self, 'CANNOT_DELETE_SELF'],
    [self, 'role.grant', 'user', other, 'ROLE_UNKNOWN'],
    [admin.user.id, 'role.grant', 'user', other, 'SUPER_ADMIN_REQUIRED'],
    [self, 'role.revoke', 'user', other, 'ROLE_NOT_FOUND'],
    [self, 'role.revoke', 'user', other, 'ROLE_NOT_ASSIGNED'],
    [self, 'role.revoke', 'user', other, 'BASE_ROLE'],
    [admin.user.id, 'session.revoke', 'session', 'nope', 'SESSION_NOT_FOUND'],
  ]);
});
