import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, decodeProtectedHeader } from 'jose';
import { identity } from '../../functions/identity';
import { startTestHost, type TestHost } from '../helpers/host';
import { call, expectError, login, verify } from './support';
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
  expect(identity.describe!()).toEqual([expect.stringContaining('SMTP')]);
  expect(fs.existsSync(path.join(host.dataDir, 'outbox'))).toBe(false);
});

test('with sign-up closed, an unknown address gets the same answer, a no-account email and no account', async () => {
  const known = await login(host, 'admin@example.com', '127.0.2.10');
  const unknown = await login(host, 'stranger@example.com');
  expect(known.status).toBe(200);
  expect(unknown.status).toBe(200);
  expect(unknown.body).toEqual(known.body);
  const mail = mailTo('stranger@example.com')!;
  expect(mail.data).toContain('there is no account');
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
