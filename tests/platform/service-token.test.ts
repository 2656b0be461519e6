import { mintServiceToken, verifyServiceToken } from '../../shared/auth/service-token';

const CURRENT = 'current-service-token-secret-0123456789abcdef';
const PREVIOUS = 'previous-service-token-secret-0123456789abcdef';
const PARTIES = { issuer: 'payment-service', audience: 'identity-service' };
const now = new Date('2026-11-22T12:00:00Z');

const verify =
  (token: string, secrets: string[], at = now) =>
  () =>
    verifyServiceToken(token, { ...PARTIES, secrets, now: at });

test('a token verifies under the current or the previous secret', () => {
  expect(verify(mintServiceToken({ secret: CURRENT, ...PARTIES, now }), [CURRENT, PREVIOUS])()).toMatchObject({
    iss: 'payment-service',
    role: 'service_admin',
  });
  expect(verify(mintServiceToken({ secret: PREVIOUS, ...PARTIES, now }), [CURRENT, PREVIOUS])()).toMatchObject({ aud: 'identity-service' });
});

test('a token verified before stops verifying once its secret is retired', () => {
  const token = mintServiceToken({ secret: PREVIOUS, ...PARTIES, now });
  expect(verify(token, [CURRENT, PREVIOUS])).not.toThrow();
  expect(verify(token, [CURRENT])).toThrow('signature does not verify');
});

test('a verified token is still refused once it has expired', () => {
  const token = mintServiceToken({ secret: CURRENT, ...PARTIES, now, lifetimeSeconds: 3600 });
  expect(verify(token, [CURRENT])).not.toThrow();
  expect(verify(token, [CURRENT], new Date(now.getTime() + 3600_000 + 61_000))).toThrow('token has expired');
});

test('a verified signature does not carry over to a changed payload', () => {
  const token = mintServiceToken({ secret: CURRENT, ...PARTIES, now });
  expect(verify(token, [CURRENT])).not.toThrow();
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86400 })).toString('base64url')}.${signature}`;
  expect(verify(forged, [CURRENT])).toThrow('signature does not verify');
});

test('wrong parties are refused on every call, cached or not', () => {
  const token = mintServiceToken({ secret: CURRENT, issuer: 'someone-else', audience: 'identity-service', now });
  expect(verify(token, [CURRENT])).toThrow('issuer is not the payment service');
  expect(verify(token, [CURRENT])).toThrow('issuer is not the payment service');
});

test('a refusal for a missing permission names the permission that is missing', () => {
  const token = mintServiceToken({ secret: CURRENT, ...PARTIES, now });
  expect(() => verifyServiceToken(token, { ...PARTIES, secrets: [CURRENT], now, requiredPermission: 'admin:users:delete' })).toThrow(
    'token lacks the admin:users:delete permission',
  );
});
