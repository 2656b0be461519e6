import type { Plan } from '../../shared/auth/access-token';
import { db } from '../../shared/sql/db';
import { SECTIONS } from '../../functions/orchestrator/workflow/stages';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn } from '../helpers/identity';
import { ACME, parsePdf, waitFor } from '../orchestrator/helpers';

/**
 * Every line GET /payment/plans advertises is a promise to a buyer (issue 50): for each plan, a
 * buyer of that plan orders one report over HTTP (the offline AI provider) and each line is proved
 * on what they get: the quota by what the reports API enforces, the sections by the PDF's text, the
 * presentation by its download link. A line with no proof below fails the test, so an untrue line
 * cannot be added silently; a plan that does not advertise something must not get it either.
 */
interface Link {
  kind: string;
  contentType: string;
  url: string;
}
interface Delivered {
  plan: Plan;
  /** The 202 answer's quota and the answer of the request after it. */
  quota: { limit: number | null; count: number; resetsAt: string };
  next: { status: number; body: { code?: string; limit?: number } };
  links: Link[];
  pdfText: string;
}

const TITLES = SECTIONS.map((s) => s.title);
/** "A, B and C" as its items. */
const listed = (text: string) => text.split(/, | and /).map((t) => t.trim());

/** Each provable line: a pattern, and what it obliges the report to show. Lines that match none fail. */
const PROOFS: { line: RegExp; prove: (got: Delivered, match: RegExpMatchArray) => void | Promise<void> }[] = [
  {
    line: /^(\d+) reports? per month$/,
    prove: (got, [, n]) => {
      const limit = Number(n);
      expect(got.quota).toEqual({ limit, count: limit, resetsAt: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/), period: 'calendar_month' });
      expect(got.next).toMatchObject({ status: 429, body: { code: 'REPORT_QUOTA_EXCEEDED', limit } });
    },
  },
  {
    line: /^Unlimited reports$/,
    prove: (got) => {
      expect(got.quota.limit).toBeNull();
      expect(got.next.status).toBe(202);
    },
  },
  {
    line: /^Short report: (.+)$/,
    prove: (got, [, list]) => {
      const promised = listed(list);
      expect(TITLES).toEqual(expect.arrayContaining(promised));
      for (const title of TITLES) expect([title, got.pdfText.includes(title)]).toEqual([title, promised.includes(title)]);
    },
  },
  {
    line: /^Full report: all (\d+) sections$/,
    prove: (got, [, n]) => {
      expect(Number(n)).toBe(TITLES.length);
      for (const title of TITLES) expect([title, got.pdfText.includes(title)]).toEqual([title, true]);
    },
  },
  {
    line: /^PDF download$/,
    prove: (got) => {
      expect(got.links.filter((l) => l.kind === 'pdf').map((l) => l.contentType)).toEqual(['application/pdf']);
      expect(got.pdfText).toContain(ACME.company_name);
    },
  },
  {
    line: /^PowerPoint presentation of each report$/,
    prove: async (got) => {
      const deck = got.links.find((l) => l.kind === 'presentation');
      expect(deck?.contentType).toBe('application/vnd.openxmlformats-officedocument.presentationml.presentation');
      const bytes = Buffer.from(await (await fetch(deck!.url)).arrayBuffer());
      expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    },
  },
];

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { ORCHESTRATOR_LOG_FLUSH_MS: '20' } });
});
afterAll(() => host.stop());

/** A buyer of `plan` orders one report, with the month's quota all but used, and follows it to completed. */
async function deliver(plan: Plan, limit: number | null): Promise<Delivered> {
  const email = `promises-${plan}@example.com`;
  const first = await signIn(host, email);
  await db().updateTable('users').set({ plan }).where('id', '=', first.user.id).execute();
  if (limit !== null && limit > 1) {
    const month = new Date().toISOString().slice(0, 7);
    await db()
      .insertInto('orchestrator_report_usage')
      .values({ user_id: first.user.id, period: month, reports: limit - 1 })
      .execute();
  }
  const { accessToken } = await signIn(host, email);
  const order = () =>
    host.fetch('/orchestrator/api/reports', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(accessToken) },
      body: JSON.stringify(ACME),
    });
  const accepted = await order();
  expect(accepted.status).toBe(202);
  const { trackingId, quota } = (await accepted.json()) as { trackingId: string; quota: Delivered['quota'] };
  // The request after it: refused at a limit, accepted (and left to run) when unlimited.
  const second = await order();
  const next = { status: second.status, body: (await second.json()) as Delivered['next']['body'] };
  const done = await waitFor(
    async () => {
      const response = await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(accessToken) }).catch(() => undefined);
      const body = response && ((await response.json()) as { status: string; downloadLinks: Link[] });
      return body && ['completed', 'failed'].includes(body.status) ? body : undefined;
    },
    60_000,
    `${plan} report ${trackingId}`,
  );
  expect(done.status).toBe('completed');
  const pdf = done.downloadLinks.find((l) => l.kind === 'pdf')!;
  const pdfText = (await parsePdf(Buffer.from(await (await fetch(pdf.url)).arrayBuffer()))).text.replace(/\s+/g, ' ');
  return { plan, quota, next, links: done.downloadLinks, pdfText };
}

test.each(['free', 'pro', 'enterprise'] as const)('every line the %s plan advertises is true for a buyer of it', async (id) => {
  const { plans } = (await (await host.fetch('/payment/plans')).json()) as { plans: { id: Plan; reportsPerMonth: number | null; features: string[] }[] };
  const plan = plans.find((p) => p.id === id)!;
  const got = await deliver(id, plan.reportsPerMonth);
  for (const line of plan.features) {
    const proof = PROOFS.map((p) => ({ p, match: line.match(p.line) })).find((m) => m.match);
    expect(proof ? line : `no proof for this line: "${line}"`).toBe(line);
    await proof!.p.prove(got, proof!.match!);
  }
  // What a plan does not advertise, its buyer does not get.
  if (!plan.features.some((f) => /PowerPoint/.test(f))) expect(got.links.map((l) => l.kind)).not.toContain('presentation');
});
