import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { ACME } from '../orchestrator/helpers';
import { barChart, visualToken } from '../visual/helpers';

/** What the one HTTP wrapper guarantees on every route: bounded JSON, safe headers, CORS only for listed origins. */
describe('the shared HTTP wrapper', () => {
  let host: TestHost;
  let admin: SignedIn;
  const CONSOLE = 'http://console.example.test:8080';

  beforeAll(async () => {
    host = await startTestHost({ env: { CORS_ALLOWED_ORIGINS: `${CONSOLE},https://ops.example.test` } });
    admin = await signInAdmin(host);
  });
  afterAll(() => host.stop());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    host.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const nested = (levels: number) =>
    `{"charts":[{"type":"bar","data":{"labels":["a"],"datasets":[{"data":[1]}]},"options":{"plugins":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}}]}`;

  describe('JSON nesting is capped for every JSON body (64 levels)', () => {
    // As deep as each route's body size limit lets a body be.
    test.each([
      ['identity login', '/identity/auth/login', 300],
      ['orchestrator report request', '/orchestrator/api/reports', 5_000],
      ['visual render', '/visual/api/v1/charts/render', 50_000],
    ])('%s: %s levels deep is a 400 naming the limit, not a 500', async (_name, path, levels) => {
      const token = path.startsWith('/visual') ? visualToken(host) : admin.accessToken;
      const res = await post(path, nested(levels), bearer(token));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'JSON_TOO_DEEP', maxDepth: 64, message: expect.stringContaining('64') });
    });

    test('QuickChart: a chart given as text, 50,000 levels deep once read, is a 400 too', async () => {
      const chart = `{type:'bar',data:{labels:['a'],datasets:[{data:[1]}]},options:{plugins:${'{a:'.repeat(50_000)}1${'}'.repeat(50_000)}}}`;
      const res = await post('/quickchart/chart', JSON.stringify({ chart }), bearer(visualToken(host)));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'JSON_TOO_DEEP', maxDepth: 64 });
    });

    test('a body within the limit is read as before', async () => {
      const res = await post('/visual/api/v1/charts/render', nested(40), bearer(visualToken(host)));
      expect(res.status).toBe(200);
    });
  });

  describe('safe headers', () => {
    test('token, client-secret and personal-data answers are no-store and nosniff', async () => {
      const user = await signIn(host, 'headers@example.com');
      const refreshed = await post('/identity/auth/refresh', JSON.stringify({ refreshToken: user.refreshToken }));
      const validated = await host.fetch('/identity/auth/validate', { headers: bearer(user.accessToken) });
      const intent = await post(
        '/payment/create-payment-intent',
        JSON.stringify({ amount: 2900, planType: 'pro', userId: user.user.id }),
        bearer(user.accessToken),
      );
      const users = await host.fetch('/identity/admin/users', { headers: bearer(admin.accessToken) });
      const audit = await host.fetch('/identity/admin/audit', { headers: bearer(admin.accessToken) });
      const refused = await host.fetch('/identity/admin/users', { headers: bearer('not-a-token') });
      for (const res of [refreshed, validated, intent, users, audit, refused]) {
        expect([res.status, res.headers.get('cache-control'), res.headers.get('x-content-type-options')]).toEqual([res.status, 'no-store', 'nosniff']);
      }
      expect([refreshed.status, validated.status, intent.status, users.status, audit.status, refused.status]).toEqual([200, 200, 200, 200, 200, 401]);
      expect(((await refused.json()) as { code: string }).code).toBe('AUTH_TOKEN_INVALID');
      expect(((await intent.json()) as { clientSecret: string }).clientSecret).toBeTruthy();
    });

    test('public answers keep their own caching, and are nosniff too', async () => {
      const jwks = await host.fetch('/identity/.well-known/jwks.json');
      expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
      expect(jwks.headers.get('x-content-type-options')).toBe('nosniff');
    });

    test("API answers of every service, successes and refusals, may not be framed: frame-ancestors 'none'", async () => {
      const user = await signIn(host, 'frames@example.com');
      const json = { 'content-type': 'application/json' };
      const answers = {
        'identity validate': await host.fetch('/identity/auth/validate', { headers: bearer(user.accessToken) }),
        'identity login refused': await post('/identity/auth/login', '{'),
        'identity JWKS (public, cached)': await host.fetch('/identity/.well-known/jwks.json'),
        'payment plans': await host.fetch('/payment/plans'),
        'payment status refused': await host.fetch('/payment/user-status'),
        'payment webhook refused': await post('/payment/webhook', '{}'),
        'orchestrator report accepted': await post('/orchestrator/api/reports', JSON.stringify(ACME), bearer(user.accessToken)),
        'orchestrator unknown report': await host.fetch('/orchestrator/api/reports/rpt-unknown', { headers: bearer(user.accessToken) }),
        'orchestrator dashboard refused': await host.fetch('/orchestrator/api/admin/dashboard/overview', { headers: bearer(user.accessToken) }),
        'visual render': await post('/visual/api/v1/charts/render', JSON.stringify({ charts: [barChart()] }), bearer(visualToken(host))),
        'visual render refused': await host.fetch('/visual/api/v1/charts/render', { method: 'POST', headers: json, body: '{}' }),
        health: await host.fetch('/payment/health'),
        'openapi.json': await host.fetch('/visual/openapi.json'),
      };
      const framing = Object.fromEntries(
        Object.entries(answers).map(([name, res]) => {
          const policy = res.headers.get('content-security-policy') ?? '';
          const directive = policy.split(';').map((d) => d.trim().split(/\s+/));
          return [
            name,
            {
              json: res.headers.get('content-type')?.startsWith('application/json'),
              frameAncestors: directive.find((d) => d[0] === 'frame-ancestors')?.slice(1),
            },
          ];
        }),
      );
      expect(framing).toEqual(Object.fromEntries(Object.keys(answers).map((name) => [name, { json: true, frameAncestors: ["'none'"] }])));
    });
  });

  describe('CORS', () => {
    test('a preflight from a listed origin is answered with what the browser needs', async () => {
      const res = await host.fetch('/orchestrator/api/admin/dashboard/overview', {
        method: 'OPTIONS',
        headers: { origin: CONSOLE, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(CONSOLE);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(res.headers.get('vary')).toBe('Origin');
    });

    test('a preflight or a request from any other origin gets no CORS headers', async () => {
      const pre = await host.fetch('/identity/auth/login', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'POST' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      const get = await host.fetch('/payment/plans', { headers: { origin: 'https://evil.example.test' } });
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
    });

    test('an actual request from a listed origin may read the answer and its request id', async () => {
      const res = await host.fetch('/orchestrator/api/admin/dashboard/overview', {
        headers: { origin: 'https://ops.example.test', ...bearer(admin.accessToken) },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://ops.example.test');
      expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    });

    test('a plain OPTIONS says which methods a route takes', async () => {
      const res = await host.fetch('/identity/auth/login', { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    });
  });
});
