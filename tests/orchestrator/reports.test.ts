import { randomUUID } from 'node:crypto';
import { db } from '../../shared/sql/db';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin } from '../helpers/identity';
import { stepsFor } from '../../functions/orchestrator/workflow/stages';
import { ACME, logRows, parsePdf, waitFor, waitForRows } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

type Status = {
  status: string;
  progress_percentage: number;
  visuals: { status: string; error: string | null };
  downloadLinks: { kind: string; url: string; fileName: string; contentType: string; expiresAt: string }[];
} & Record<string, unknown>;

describe('report requests over HTTP (identity JWT, visual service up, Azurite, SQLite)', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await startTestHost({ env: { ORCHESTRATOR_LOG_FLUSH_MS: '20' } });
  });
  afterAll(() => host.stop());

  async function userWithPlan(email: string, plan: 'free' | 'pro' | 'enterprise') {
    const first = await signIn(host, email);
    if (plan === 'free') return first;
    await db().updateTable('users').set({ plan }).where('id', '=', first.user.id).execute();
    return signIn(host, email);
  }

  const post = (token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
    host.fetch('/orchestrator/api/reports', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function finished(token: string, trackingId: string): Promise<Status> {
    return waitFor(
      async () => {
        // A pooled keep-alive socket the server just closed resets; the next poll opens a new one.
        const response = await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(token) }).catch(() => undefined);
        if (!response) return undefined;
        const body = (await response.json()) as Status;
        return body.status === 'completed' || body.status === 'failed' ? body : undefined;
      },
      60_000,
      `report ${trackingId}`,
    );
  }

  it('a pro report runs to completed; its PDF downloads through a read-only link and has cover, figures, charts and six sections', async () => {
    const user = await userWithPlan('pro-user@example.com', 'pro');
    const accepted = await post(user.accessToken, ACME);
    expect(accepted.status).toBe(202);
    const body = (await accepted.json()) as { success: boolean; trackingId: string; status: string; statusUrl: string };
    expect(body).toEqual({
      success: true,
      trackingId: expect.stringMatching(/^rpt-/),
      status: 'processing',
      statusUrl: `${host.url}/orchestrator/api/reports/${body.trackingId}`,
      quota: { limit: 50, count: 1, resetsAt: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/), period: 'calendar_month' },
    });
    // The 202 says where to follow the report in its Location header too: the status URL, which answers.
    expect(accepted.headers.get('location')).toBe(body.statusUrl);
    const followed = await host.fetch(accepted.headers.get('location')!, { headers: bearer(user.accessToken) });
    expect(followed.status).toBe(200);
    expect(await followed.json()).toMatchObject({ trackingId: body.trackingId });

    const status = await finished(user.accessToken, body.trackingId);
    expect(status).toMatchObject({
      status: 'completed',
      progress_percentage: 100,
      plan: 'pro',
      company_name: ACME.company_name,
      industry_id: '31-33',
      error: null,
    });
    expect(status.visuals).toEqual({ status: 'included', error: null });
    expect(status.downloadLinks).toHaveLength(1);
    const [link] = status.downloadLinks;
    expect(link).toMatchObject({ kind: 'pdf', fileName: 'Acme-Widgets-GmbH-report.pdf', contentType: 'application/pdf' });
    const sas = new URL(link.url).searchParams;
    expect(sas.get('sp')).toBe('r');
    expect(new Date(sas.get('se')!).getTime()).toBeGreaterThan(Date.now());

    const download = await fetch(link.url);
    expect(download.status).toBe(200);
    const pdf = Buffer.from(await download.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const parsed = await parsePdf(pdf);
    // A cover, then six sections flowing with two charts, a table and a closing note.
    expect(parsed.numpages).toBe(4);
    expect(parsed.text).toContain(ACME.company_name);
    expect(parsed.text).toContain('Generated offline');
    expect(parsed.text).toContain('Revenue by year, EUR millions');
    expect(parsed.text).toContain('Recommendations');

    // The link is read-only: writing through it is refused by storage.
    const write = await fetch(link.url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'overwrite' });
    expect([write.status, write.headers.get('x-ms-error-code')]).toEqual([403, 'AuthorizationPermissionMismatch']);

    const rows = await waitForRows(body.trackingId, stepsFor('pro').length * 2);
    const pdfStep = rows.find((r) => r.step_number === 11 && r.status === 'completed')!;
    // The PDF draws its figures as text: the infographic is made only for a presentation.
    expect(JSON.parse(pdfStep.metadata!)).toMatchObject({ visuals_status: 'included', charts: 2, infographic: false, pdf_pages: 4 });
  });

  it('a free report is the short one; an enterprise report adds a presentation', async () => {
    const free = await userWithPlan('free-user@example.com', 'free');
    const enterprise = await userWithPlan('ent-user@example.com', 'enterprise');
    const [a, b] = await Promise.all([post(free.accessToken, ACME), post(enterprise.accessToken, ACME)]);
    const freeId = ((await a.json()) as { trackingId: string }).trackingId;
    const entId = ((await b.json()) as { trackingId: string }).trackingId;

    const freeStatus = await finished(free.accessToken, freeId);
    expect(freeStatus.downloadLinks.map((l) => l.kind)).toEqual(['pdf']);
    const freePdf = await parsePdf(Buffer.from(await (await fetch(freeStatus.downloadLinks[0].url)).arrayBuffer()));
    expect(freePdf.numpages).toBe(3);
    expect(freePdf.text).toContain('Financial Analysis');
    expect(freePdf.text).not.toContain('Market Position');

    const entStatus = await finished(enterprise.accessToken, entId);
    expect(entStatus.downloadLinks.map((l) => l.kind)).toEqual(['pdf', 'presentation']);
    const pptx = Buffer.from(await (await fetch(entStatus.downloadLinks[1].url)).arrayBuffer());
    expect(pptx.subarray(0, 2).toString()).toBe('PK');
    expect(pptx.includes(Buffer.from('ppt/slides/slide1.xml'))).toBe(true);
    // The presentation's slides take the charts as PNG and the KPI infographic, asked for only here.
    const entRows = await waitForRows(entId, stepsFor('enterprise').length * 2);
    const entPdfStep = entRows.find((r) => r.step_number === 11 && r.status === 'completed')!;
    expect(JSON.parse(entPdfStep.metadata!)).toMatchObject({ visuals_status: 'included', charts: 2, infographic: true });
  });

  it('only the owner or an admin sees a report; others get the same 404 as for an unknown id', async () => {
    const owner = await signIn(host, 'owner@example.com');
    const other = await signIn(host, 'other@example.com');
    const admin = await signInAdmin(host);
    const { trackingId } = (await (await post(owner.accessToken, ACME)).json()) as { trackingId: string };
    expect((await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(owner.accessToken) })).status).toBe(200);
    expect((await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(admin.accessToken) })).status).toBe(200);
    // Status, headers and body (but for the id it names and the time) must be those of an id that
    // does not exist: any difference would tell a stranger which ids are real.
    const unknownId = `rpt-${randomUUID()}`;
    const answer = async (id: string, token: string) => {
      const res = await host.fetch(`/orchestrator/api/reports/${id}`, { headers: bearer(token) });
      const body = (await res.json()) as Record<string, unknown>;
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        cacheControl: res.headers.get('cache-control'),
        body: { ...body, message: String(body.message).replaceAll(id, '<id>'), timestamp: expect.any(String) },
      };
    };
    const foreign = await answer(trackingId, other.accessToken);
    expect(foreign).toMatchObject({ status: 404, body: { code: 'REPORT_NOT_FOUND' } });
    expect(foreign).toEqual(await answer(unknownId, other.accessToken));
    expect(foreign).toEqual(await answer(unknownId, owner.accessToken));
    const badId = await host.fetch('/orchestrator/api/reports/bad%20id!', { headers: bearer(owner.accessToken) });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    const anonymous = await host.fetch(`/orchestrator/api/reports/${trackingId}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  it('rejects bad requests with a 4xx JSON body naming the problem, and stores nothing', async () => {
    const user = await signIn(host, 'validator@example.com');
    const before = await db()
      .selectFrom('orchestrator_executions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const cases: [unknown, number, string, RegExp][] = [
      ['{"company_name":', 400, 'INVALID_JSON', /not valid JSON/],
      [{ ...ACME, industry_id: '99' }, 400, 'VALIDATION_FAILED', /industry_id/],
      [{ ...ACME, company_name: '' }, 400, 'VALIDATION_FAILED', /company_name/],
      [{ company_name: 'X', industry_id: '52' }, 400, 'VALIDATION_FAILED', /profile is required/],
      [{ ...ACME, profile: { ...ACME.profile, employees: 'many' } }, 400, 'VALIDATION_FAILED', /profile\.employees/],
      [
        {
          ...ACME,
          profile: {
            ...ACME.profile,
            revenue_history: [
              { year: 2020, revenue: 1 },
              { year: 2020, revenue: 2 },
            ],
          },
        },
        400,
        'VALIDATION_FAILED',
        /year 2020 more than once/,
      ],
      [{ ...ACME, extra: true }, 400, 'VALIDATION_FAILED', /extra is not an allowed field/],
      [{ ...ACME, locale: 'qq-QQ' }, 400, 'VALIDATION_FAILED', /locale "qq-QQ"/],
      [{ ...ACME, locale: 'en_US' }, 400, 'VALIDATION_FAILED', /locale/],
      [{ ...ACME, profile: { ...ACME.profile, description: 'x'.repeat(70_000) } }, 413, 'PAYLOAD_TOO_LARGE', /limit/],
      // Control characters in the text a report prints (tab, line feed and carriage return aside).
      [{ ...ACME, company_name: 'Gamma\u0001Co' }, 400, 'VALIDATION_FAILED', /^Invalid body: company_name contains a control character \(U\+0001\)$/],
      [
        { ...ACME, profile: { ...ACME.profile, description: 'Line\u0000' } },
        400,
        'VALIDATION_FAILED',
        /^Invalid body: profile\.description contains a control character \(U\+0000\)$/,
      ],
      [
        { ...ACME, profile: { ...ACME.profile, goals: ['Grow', 'Bell\u0007'] } },
        400,
        'VALIDATION_FAILED',
        /^Invalid body: profile\.goals\[1\] contains a control character \(U\+0007\)$/,
      ],
      [
        { ...ACME, profile: { ...ACME.profile, challenges: ['Del\u007f'] } },
        400,
        'VALIDATION_FAILED',
        /^Invalid body: profile\.challenges\[0\] contains a control character \(U\+007F\)$/,
      ],
      [
        { ...ACME, profile: { ...ACME.profile, challenges: ['C1\u0085'] } },
        400,
        'VALIDATION_FAILED',
        /^Invalid body: profile\.challenges\[0\] contains a control character \(U\+0085\)$/,
      ],
    ];
    for (const [body, status, code, message] of cases) {
      const response = await post(user.accessToken, body);
      const json = (await response.json()) as { error: string; message: string; code: string; timestamp: string; details?: { field: string }[] };
      expect([response.status, json.code]).toEqual([status, code]);
      expect(json.message).toMatch(message);
      if (/control character/.test(json.message))
        expect(json.details).toEqual([{ field: json.message.split(' ')[2], message: expect.stringMatching(/^contains a control character/) }]);
      expect(json.error).toBeTruthy();
      expect(json.timestamp).toBeTruthy();
    }
    await expectErrorAnswer(await post(undefined, ACME), 401, 'AUTH_REQUIRED');
    await expectErrorAnswer(await post('not-a-jwt', ACME), 401, 'AUTH_TOKEN_INVALID');
    const after = await db()
      .selectFrom('orchestrator_executions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('a locale whose region is a number (en-419, en-001, en-150) makes a report: numbers in its conventions, the document language without the region', async () => {
    const user = await userWithPlan('regions@example.com', 'pro');
    for (const locale of ['en-419', 'en-001', 'en-150']) {
      const accepted = await post(user.accessToken, { ...ACME, locale });
      expect(accepted.status).toBe(202);
      const { trackingId } = (await accepted.json()) as { trackingId: string };
      const status = await finished(user.accessToken, trackingId);
      expect([locale, status.status, status.error]).toEqual([locale, 'completed', null]);
      const pdf = await parsePdf(Buffer.from(await (await fetch(status.downloadLinks[0].url)).arrayBuffer()));
      expect(pdf.text.replace(/\s+/g, ' ')).toContain(`numbers and dates follow the ${locale} conventions`);
    }
  });

  it("a failed report tells its owner what happened in words for them; the typesetter's own message stays with the operators", async () => {
    const user = await signIn(host, 'failed-owner@example.com');
    const { trackingId } = (await (await post(user.accessToken, ACME)).json()) as { trackingId: string };
    await finished(user.accessToken, trackingId);
    // The failure the typesetter gave a report in en-419 before regions were mapped, stored as the runner stores a failure.
    const typst = 'report typesetting failed: expected two letter region code (ISO 3166-1 alpha-2)';
    await db()
      .updateTable('orchestrator_executions')
      .set({
        processing_status: 'failed',
        error_message: typst,
        error_pattern: 'OTHER',
        error_source: null,
        error_step: 'PDF_ENHANCEMENT',
        visuals_status: 'skipped',
        visuals_error: 'fetch failed',
        assets: null,
      })
      .where('tracking_id', '=', trackingId)
      .execute();
    const response = await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(user.accessToken) });
    const text = await response.text();
    expect(text).not.toMatch(/typesetting|region code|fetch failed/);
    expect(JSON.parse(text)).toMatchObject({
      status: 'failed',
      error: {
        message: 'The report could not be produced because of an error on our side. Quote its tracking id to support; an administrator can run it again.',
        error_pattern: 'OTHER',
        error_source: null,
        step: 'PDF_ENHANCEMENT',
      },
      visuals: { status: 'skipped', error: 'The charts could not be made; every figure they would show is in the tables and the text.' },
    });
    // The administrators read the technical detail.
    const admin = await signInAdmin(host);
    const detail = await host.fetch(`/orchestrator/api/admin/status/${trackingId}`, { headers: bearer(admin.accessToken) });
    const view = (await detail.json()) as { data: { execution: { error: { message: string } }; visuals: { error: string } } };
    expect([view.data.execution.error.message, view.data.visuals.error]).toEqual([typst, 'fetch failed']);
  });

  it('a revenue of 1e-300, a year of zero and the largest figures make a report whose text and charts print only finite figures', async () => {
    const user = await userWithPlan('extremes@example.com', 'pro');
    const revenue_history = [
      { year: 2019, revenue: 1e-300, net_income: 1e15 },
      { year: 2020, revenue: 1e7, net_income: -1e15 },
      { year: 2021, revenue: 0, net_income: 5e5 },
      { year: 2022, revenue: 1e15, net_income: 1e-300 },
      { year: 2023, revenue: 1 },
    ];
    const accepted = await post(user.accessToken, { ...ACME, profile: { ...ACME.profile, employees: 1, revenue_history } });
    const { trackingId } = (await accepted.json()) as { trackingId: string };
    const status = await finished(user.accessToken, trackingId);
    expect([status.status, status.visuals.status]).toEqual(['completed', 'included']);
    const pdf = await parsePdf(Buffer.from(await (await fetch(status.downloadLinks[0].url)).arrayBuffer()));
    expect(pdf.text).toContain('Acme Widgets GmbH');
    expect(pdf.text).not.toMatch(/∞|NaN|Infinity|0{12}/);
    expect(pdf.text.replace(/\s+/g, ' ')).toContain('such growth and margins are shown as a dash');
  });

  it('logs of a report are in step order in the processing log', async () => {
    const user = await signIn(host, 'order@example.com');
    const { trackingId } = (await (await post(user.accessToken, ACME)).json()) as { trackingId: string };
    await finished(user.accessToken, trackingId);
    const rows = await waitForRows(trackingId, stepsFor('free').length * 2);
    const starts = rows.filter((r) => r.status === 'started').map((r) => r.step_number);
    expect(starts).toEqual([0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 99]);
    expect((await logRows(trackingId)).every((r) => r.error_pattern === null)).toBe(true);
  });
});
