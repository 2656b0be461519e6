import { decodeProtectedHeader, jwtVerify } from 'jose';
import { mintServiceToken, SERVICE_TOKEN_PREFIX, verifyServiceToken } from '../../shared/auth/service-token';
import { serviceTokenClaims, signByHand } from '../helpers/service-token';

const CURRENT = 'current-service-token-secret-0123456789abcdef';
const PREVIOUS = 'previous-service-token-secret-0123456789abcdef';
const PARTIES = { issuer: 'payment-service', audience: 'identity-service' };
const now = new Date('2026-11-22T12:00:00Z');

const verify = (token: string, secrets: string[], at = now) => verifyServiceToken(token, { ...PARTIES, secrets, now: at });
const mint = (secret: string, extra: { now?: Date; lifetimeSeconds?: number; issuer?: string } = {}) => mintServiceToken({ secret, ...PARTIES, now, ...extra });

const iat = Math.floor(now.getTime() / 1000);
const claims = (overrides: object = {}) => serviceTokenClaims(overrides, iat);
const handSigned = (payload: object, header?: object) => signByHand(payload, CURRENT, header);
const signedRaw = (payload: string) => signByHand(payload, CURRENT);

test('the token carries exactly the header {"alg":"HS256","typ":"JWT","service":"payment"} and is a standard HS256 JWT', async () => {
  const token = await mint(CURRENT);
  expect(token.startsWith(SERVICE_TOKEN_PREFIX)).toBe(true);
  expect(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')).toBe('{"alg":"HS256","typ":"JWT","service":"payment"}');
  expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT', service: 'payment' });
  // Any JWT library verifies it with the shared secret.
  const { payload } = await jwtVerify(token, Buffer.from(CURRENT), { algorithms: ['HS256'], currentDate: now });
  expect(payload).toEqual({ ...claims(), exp: iat + 365 * 24 * 3600 });
});

test('a token minted by hand as before (same header, claims and HMAC) still verifies, byte for byte the same', async () => {
  const token = await mint(CURRENT, { lifetimeSeconds: 3600 });
  expect(token).toBe(handSigned(claims()));
  await expect(verify(handSigned(claims()), [CURRENT])).resolves.toMatchObject({ iss: 'payment-service' });
});

test('a token verifies under the current or the previous secret', async () => {
  await expect(verify(await mint(CURRENT), [CURRENT, PREVIOUS])).resolves.toMatchObject({ iss: 'payment-service', role: 'service_admin' });
  await expect(verify(await mint(PREVIOUS), [CURRENT, PREVIOUS])).resolves.toMatchObject({ aud: 'identity-service' });
});

test('a token verified before stops verifying once its secret is retired', async () => {
  const token = await mint(PREVIOUS);
  await expect(verify(token, [CURRENT, PREVIOUS])).resolves.toBeDefined();
  await expect(verify(token, [CURRENT])).rejects.toThrow('signature does not verify');
});

test('a verified token is still refused once it has expired', async () => {
  const token = await mint(CURRENT, { lifetimeSeconds: 3600 });
  await expect(verify(token, [CURRENT])).resolves.toBeDefined();
  await expect(verify(token, [CURRENT], new Date(now.getTime() + 3600_000 + 61_000))).rejects.toThrow('token has expired');
});

test('an expired token never verified before is refused as expired; within the 60 s leeway it passes', async () => {
  const token = await mint(CURRENT, { lifetimeSeconds: 3600 });
  await expect(verify(token, [CURRENT], new Date(now.getTime() + 3600_000 + 61_000))).rejects.toThrow('token has expired');
  const other = await mint(CURRENT, { lifetimeSeconds: 3599 });
  await expect(verify(other, [CURRENT], new Date(now.getTime() + 3599_000 + 59_000))).resolves.toBeDefined();
});

test('a token issued in the future (beyond the leeway) is refused', async () => {
  await expect(verify(await mint(CURRENT, { now: new Date(now.getTime() + 120_000) }), [CURRENT])).rejects.toThrow('token is issued in the future');
});

test('a verified signature does not carry over to a changed payload', async () => {
  const token = await mint(CURRENT);
  await expect(verify(token, [CURRENT])).resolves.toBeDefined();
  const [header, payload, signature] = token.split('.');
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...decoded, exp: decoded.exp + 86400 })).toString('base64url')}.${signature}`;
  await expect(verify(forged, [CURRENT])).rejects.toThrow('signature does not verify');
});

test.each([
  ['alg none', handSigned(claims(), { alg: 'none', typ: 'JWT', service: 'payment' }).replace(/[^.]+$/, '')],
  ['an extra header field', handSigned(claims(), { alg: 'HS256', typ: 'JWT', service: 'payment', x: 1 })],
  ['another service', handSigned(claims(), { alg: 'HS256', typ: 'JWT', service: 'orchestrator' })],
  ['the same header without the service', handSigned(claims(), { alg: 'HS256', typ: 'JWT' })],
])('a header other than the fixed one is refused even when signed with the secret: %s', async (_name, token) => {
  await expect(verify(token, [CURRENT])).rejects.toThrow('token does not carry the service token header');
});

test.each([
  ['no signature', `${SERVICE_TOKEN_PREFIX}${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`, 'signature does not verify'],
  ['a signed payload that is not JSON', signedRaw('not json'), 'payload is not a JSON object'],
  ['a signed payload that is a JSON array', signedRaw('[1]'), 'payload is not a JSON object'],
  ['garbage after the prefix', `${SERVICE_TOKEN_PREFIX}abc`, 'token is not a signed JWT'],
])('a malformed token is refused: %s', async (_name, token, message) => {
  await expect(verify(token, [CURRENT])).rejects.toThrow(message);
});

test('wrong parties are refused on every call, cached or not', async () => {
  const token = await mint(CURRENT, { issuer: 'someone-else' });
  await expect(verify(token, [CURRENT])).rejects.toThrow('issuer is not the payment service');
  await expect(verify(token, [CURRENT])).rejects.toThrow('issuer is not the payment service');
});

test('a refusal for a missing permission names the permission that is missing', async () => {
  const token = await mint(CURRENT);
  await expect(verifyServiceToken(token, { ...PARTIES, secrets: [CURRENT], now, requiredPermission: 'admin:users:delete' })).rejects.toThrow(
    'token lacks the admin:users:delete permission',
  );
});
