import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, decodeProtectedHeader } from 'jose';
import { identity } from '../../functions/identity';
import { identityDb } from '../../functions/identity/db/tables';
import { issueCode } from '../../functions/identity/otp';
import { runInPlatform } from '../../shared/platform';
import { startTestHost, type TestHost } from '../helpers/host';
import { call, expectError, login, mailText, verify } from './support';
import { startSmtpSink } from './smtp-sink';

/** ALLOW_SIGNUP=false, email through SMTP, and two signing keys (a rotation in progress). */
let host: TestHost;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let oldKey: Awaited<ReturnType<typeof generateKeyPair>>;
let adminToken: string;

const mailTo = (email: string) => [...smtp.messages].reverse().find((m) => m.to.includes(email));
const codeFor = (email: string) => /Your sign-in code is (\d{6})/.exec(mailTo(email)?.data ?? '')?.[1];

beforeAll(async () => {
  smtp = await startSmtpSink();
  const newKey = await generateKeyPair('ES256', { extractable: true });
  oldKey = await generateKeyPair('ES256', { extractable: true });
  const keys = [
    { ...(await exportJWK(newKey.privateKey)), kid: 'key-new', alg: 'ES256' },
    { ...(await exportJWK(oldKey.privateKey)), kid: 'key-old', alg: 'ES256' },
  ];
  host = await startTestHost({ env: { ALLOW_SIGNUP: 'false', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, JWT_SIGNING_KEYS: JSON.stringify(keys) } });
  await login(host, 'admin@example.com');
  adminToken = (await verify(host, 'admin@example.com', codeFor('admin@example.com')!)).body.accessToken;
});
afterAll(async () => {
  await host.stop();
  await smtp.stop();
});

test('codes travel by SMTP and the banner says so; nothing is written to the outbox', async () => {
  expect(mailTo('admin@example.com')!.data).toMatch(/^To: admin@example\.com$/m);
  expect(identity.describe!(host.platform)).toEqual([expect.stringContaining('SMTP')]);
  expect(fs.existsSync(path.join(host.dataDir, 'outbox'))).toBe(false);
});

test('with sign-up closed, an unknown address gets the same answer, a no-account email and no account', async () => {
  const known = await login(host, 'admin@example.com', '127.0.2.10');
  const unknown = await login(host, 'stranger@example.com');
  expect(known.status).toBe(200);
  expect(unknown.status).toBe(200);
  expect(unknown.body).toEqual(known.body);
  const mail = mailTo('stranger@example.com')!;
  expect(mail.data).toMatch(/^Subject: Sign-in attempt$/m);
  const text = mailText(mail.data);
  expect(text).toContain('Someone asked to sign in with this address, but there is no account for it and sign-up is closed.');
  expect(text).toContain('If this was not you, ignore this email.');
  expect(mail.data).not.toMatch(/sign-in code is/);
  expectError(await verify(host, 'stranger@example.com', '000000'), 401, 'OTP_INVALID');
  expectError(await login(host, 'stranger@example.com'), 429, 'OTP_RESEND_COOLDOWN');
  const users = await call(host, 'GET', '/admin/users?email=stranger', { token: adminToken });
  expect(users.body.total).toBe(0);
});

test('both keys are published; tokens are signed with the first; tokens of the old key still validate', async () => {
  const jwks = await call(host, 'GET', '/.well-known/jwks.json');
  expect(jwks.body.keys.map((k: any) => k.kid)).toEqual(['key-new', 'key-old']);
  expect(decodeProtectedHeader(adminToken).kid).toBe('key-new');
  const validated = await call(host, 'GET', '/auth/validate', { token: adminToken });
  const payload = JSON.parse(Buffer.from(adminToken.split('.')[1], 'base64url').toString());
  const oldToken = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'key-old' }).sign(oldKey.privateKey);
  const res = await call(host, 'GET', '/auth/validate', { token: oldToken });
  expect(res.status).toBe(200);
  expect(res.body.sessionId).toBe(validated.body.sessionId);
  const unknownKid = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'key-gone' }).sign(oldKey.privateKey);
  expectError(await call(host, 'GET', '/auth/validate', { token: unknownKid }), 401, 'AUTH_TOKEN_INVALID');
});

test('the right code for an address without an account signs nobody up: 401 as for a wrong code, audited no_account', async () => {
  const email = 'no-account@example.com';
  // The code such an address gets is never mailed; here it is issued directly, as if it had leaked.
  const code = await runInPlatform(host.platform, () => issueCode(email));
  const res = await verify(host, email, code!);
  expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
    status: 401,
    code: 'OTP_INVALID',
    message: 'The code is not valid',
  });
  const audited = await runInPlatform(host.platform, () =>
    identityDb().selectFrom('identity_audit_log').select(['action', 'result', 'reason']).where('target_id', '=', email).execute(),
  );
  expect(audited).toEqual([{ action: 'auth.verify', result: 'failure', reason: 'no_account' }]);
  expect((await call(host, 'GET', '/admin/users?email=no-account', { token: adminToken })).body.total).toBe(0);
});
