import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { currentPlatform } from '../../shared/platform';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { ACME, orchestratorCtx } from '../orchestrator/helpers';
import { deadUrl } from '../payment/helpers';
import { expectErrorAnswer } from '../helpers/errors';

/**
 * The orchestrator routes the console added: the 24-hour trend drawn by the visual service, and
 * the company search of the executions monitor.
 */
let host: TestHost;
let admin: SignedIn;

beforeAll(async () => {
  host = await startTestHost();
  admin = await signInAdmin(host);
  const now = Date.now();
  for (const [i, company] of ['Acme Widgets GmbH', 'Beta 100% Foods', 'ACME Tools', 'Gamma_Co'].entries()) {
    const at = new Date(now - i * 60_000).toISOString();
    await insertExecution(orchestratorCtx(), {
      trackingId: `trk-search-${i}`,
      companyName: company,
      industryId: '31',
      submission: { ...ACME, company_name: company },
      requestedBy: 'u',
      plan: 'pro',
      now: at,
    });
  }
});
afterAll(() => host.stop());

const trend = (query = '', token = admin.accessToken) => host.fetch(`/orchestrator/api/admin/dashboard/trend-chart${query}`, { headers: bearer(token) });

describe('GET /orchestrator/api/admin/dashboard/trend-chart', () => {
  test('admins only', async () => {
    await expectErrorAnswer(await host.fetch('/orchestrator/api/admin/dashboard/trend-chart'), 401, 'AUTH_REQUIRED');
    const user: SignedIn = await signIn(host, 'trend-user@example.com');
    const res = await trend('', user.accessToken);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'ADMIN_REQUIRED' });
  });

  test('an SVG of the 24 hourly buckets from the visual service, cached there until a count changes', async () => {
    const first = await trend('?theme=executive&tz=UTC');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/svg+xml');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('content-security-policy')).toContain('sandbox');
    const svg = await first.text();
    expect(svg).toMatch(/^<\?xml|^<svg/);
    expect(svg).toContain('Executions per hour, last 24 hours (UTC)');
    const hour = new Date().toISOString().slice(11, 13);
    expect(svg).toContain(`${hour}:00`);
    expect(first.headers.get('x-cache')).toBe('MISS');

    const again = await trend('?theme=executive&tz=UTC');
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(await again.text()).toBe(svg);

    // Another theme is another chart; so is new data.
    expect((await trend('?theme=corporate&tz=UTC')).headers.get('x-cache')).toBe('MISS');
    await insertExecution(orchestratorCtx(), {
      trackingId: 'trk-trend-new',
      companyName: 'Delta',
      industryId: '31',
      submission: ACME,
      requestedBy: 'u',
      plan: 'pro',
      now: new Date().toISOString(),
    });
    expect((await trend('?theme=executive&tz=UTC')).headers.get('x-cache')).toBe('MISS');
  });

  test('the narrow layout (a phone): the 24 hours as rows of a 380 x 720 chart, another chart in the cache', async () => {
    const wide = await (await trend('?tz=UTC')).text();
    const res = await trend('?tz=UTC&layout=narrow');
    expect(res.status).toBe(200);
    const narrow = await res.text();
    expect(narrow).not.toBe(wide);
    expect(narrow).toMatch(/<svg[^>]*width="380"[^>]*height="720"/);
    expect(narrow).toContain('Executions per hour (UTC)');
    expect(wide).toMatch(/<svg[^>]*width="960"[^>]*height="320"/);
  });

  test('hour labels in the time zone asked for, half-hour offsets included', async () => {
    const svg = await (await trend('?tz=Asia/Kolkata')).text();
    expect(svg).toContain('(Asia/Kolkata)');
    expect(svg).toMatch(/\d\d:30/);
  });

  test.each([
    ['?theme=neon', 'VALIDATION_FAILED'],
    ['?tz=Mars/Olympus_Mons', 'VALIDATION_FAILED'],
    ['?tz=' + 'x'.repeat(65), 'VALIDATION_FAILED'],
    ['?colour=red', 'VALIDATION_FAILED'],
    ['?layout=tall', 'VALIDATION_FAILED'],
  ])('%s: 400 %s', async (query, code) => {
    const res = await trend(query);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code });
  });

  test('visual service down: 502 VISUAL_UNAVAILABLE with the reason', async () => {
    currentPlatform().reconfigure({ VISUAL_URL: `${(await deadUrl()).replace(/\/identity$/, '')}/visual` });
    try {
      const res = await trend('?theme=professional&tz=Europe/Berlin');
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: 'VISUAL_UNAVAILABLE', message: expect.stringContaining('could not draw the trend chart') });
    } finally {
      currentPlatform().reconfigure({ VISUAL_URL: undefined });
    }
  });
});

describe('GET /orchestrator/api/admin/dashboard/executions?search=', () => {
  const search = async (query: string) => {
    const res = await host.fetch(`/orchestrator/api/admin/dashboard/executions?${query}`, { headers: bearer(admin.accessToken) });
    expect(res.status).toBe(200);
    return (await res.json()) as { filters: Record<string, unknown>; executions: { recent: { company_name: string }[] } };
  };

  test('company names containing the text, ignoring case, newest first; the filter is echoed', async () => {
    const body = await search('search=acme');
    expect(body.executions.recent.map((e) => e.company_name)).toEqual(['Acme Widgets GmbH', 'ACME Tools']);
    expect(body.filters).toEqual({ limit: 50, status: 'all', search: 'acme' });
  });

  test('plain text: % and _ are not wildcards; surrounding spaces are ignored', async () => {
    expect((await search('search=100%25')).executions.recent.map((e) => e.company_name)).toEqual(['Beta 100% Foods']);
    expect((await search('search=a_c')).executions.recent.map((e) => e.company_name)).toEqual(['Gamma_Co']);
    expect((await search('search=%20%20tools%20')).executions.recent.map((e) => e.company_name)).toEqual(['ACME Tools']);
  });

  test('combined with status and limit', async () => {
    expect((await search('search=acme&status=failed')).executions.recent).toEqual([]);
    expect((await search('search=acme&limit=1')).executions.recent.map((e) => e.company_name)).toEqual(['Acme Widgets GmbH']);
  });

  test('more than 100 characters: 400', async () => {
    const res = await host.fetch(`/orchestrator/api/admin/dashboard/executions?search=${'a'.repeat(101)}`, { headers: bearer(admin.accessToken) });
    expect(await expectErrorAnswer(res, 400, 'VALIDATION_FAILED')).toMatchObject({ message: expect.stringContaining('search') });
  });
});
