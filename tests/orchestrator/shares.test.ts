import { createHash } from 'node:crypto';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { expectErrorAnswer } from '../helpers/errors';
import { db, parsePdf, storeExecution } from './helpers';
import { completedReport, createShare, listShares, postShare, revokeShare, UNICODE_COMPANY, type ShareCreated } from './share-helpers';

/**
 * Share links over HTTP (issue 51, item 5): the owner makes, lists and revokes links; the page
 * opens without an account, with its headers; views are counted; an expired or revoked link is a
 * 410 page, an unknown one a 404 page; nobody else can touch the links. The clock is the host's
 * (faked), moved past a link's expiry.
 */
jest.setTimeout(120_000);

const DAY = 86_400_000;
let offset = 0;
let host: TestHost;
let owner: SignedIn;
let other: SignedIn;
let trackingId: string;
let share: ShareCreated;

beforeAll(async () => {
  host = await startTestHost({ env: { ORCHESTRATOR_LOG_FLUSH_MS: '20' }, clock: { now: () => new Date(Date.now() + offset) } });
  owner = await signIn(host, 'share-owner@example.com');
  // The "report ready" e-mail makes a link of its own (tests/orchestrator/notifications.test.ts): these tests count only the owner's.
  const quiet = await host.fetch('/orchestrator/api/notifications/preferences', {
    method: 'PUT',
    headers: { authorization: `Bearer ${owner.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: false }),
  });
  expect(quiet.status).toBe(200);
  other = await signIn(host, 'share-other@example.com');
  trackingId = await completedReport(host, owner.accessToken);
});
afterAll(() => host?.stop());

const page = (token: string) => host.fetch(`/orchestrator/r/${token}`);

test('the owner creates a link: a 256-bit token shown once, only its SHA-256 in SQL, the page address beside it', async () => {
  share = await createShare(host, owner.accessToken, trackingId, 7);
  expect(share).toMatchObject({
    success: true,
    shareId: expect.stringMatching(/^shr_[0-9a-f]{24}$/),
    trackingId,
    status: 'active',
    views: 0,
    url: `${host.url}/orchestrator/r/${share.token}`,
    pdfUrl: `${host.url}/orchestrator/r/${share.token}/pdf`,
  });
  expect(share.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(Buffer.from(share.token, 'base64url')).toHaveLength(32);
  expect(new Date(share.expiresAt).getTime() - new Date(share.createdAt).getTime()).toBe(7 * DAY);
  const rows = await db().selectFrom('orchestrator_report_shares').selectAll().execute();
  expect(rows).toHaveLength(1);
  expect(rows[0].token_hash).toBe(createHash('sha256').update(share.token).digest('hex'));
  expect(JSON.stringify(rows)).not.toContain(share.token);
  // Two links of one report are two tokens.
  const second = await createShare(host, owner.accessToken, trackingId, 1);
  expect(second.token).not.toBe(share.token);
  await db().deleteFrom('orchestrator_report_shares').where('share_id', '=', second.shareId).execute();
});

test('the page opens without an account: the report in HTML, noindex, no-referrer, a strict policy, never cached', async () => {
  const response = await page(share.token);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('x-robots-tag')).toMatch(/noindex/);
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('cache-control')).toBe('no-store');
  const csp = response.headers.get('content-security-policy')!;
  expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*';/);
  expect(csp).not.toMatch(/script-src|unsafe/);
  const text = await response.text();
  expect(text).toMatch(/^<!DOCTYPE html><html lang="en(-[A-Z]{2})?">/);
  expect(text).toContain('<meta name="robots" content="noindex, nofollow">');
  expect(text).toContain(`<h1>${UNICODE_COMPANY}</h1>`);
  expect(text).not.toMatch(/<script/i);
  // The PDF's content: the sections, the year table, both charts as inline SVG with their titles and captions.
  for (const words of ['Executive Summary', 'Financial Analysis', 'Recommendations', 'About this report', 'Revenue by year, EUR millions', 'Table 1.'])
    expect(text).toContain(words);
  expect(text.match(/<svg [^>]*role="img"/g)).toHaveLength(2);
  expect(text).toContain('<title id="chart-1-title">Revenue by year, EUR millions: ');
  expect(text).toMatch(/<figcaption><strong>Figure 2\.<\/strong> Revenue growth and net margin by year, %\./);
  // Every chart's ids are its own: no id appears twice on the page.
  const ids = [...text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
  expect(new Set(ids).size).toBe(ids.length);
});

test('each view is counted and shown to the owner; the PDF downloads through the link without counting', async () => {
  await page(share.token);
  const pdf = await host.fetch(`/orchestrator/r/${share.token}/pdf`, { redirect: 'manual' });
  expect(pdf.status).toBe(303);
  expect(pdf.headers.get('referrer-policy')).toBe('no-referrer');
  const file = await fetch(pdf.headers.get('location')!);
  expect(file.status).toBe(200);
  const parsed = await parsePdf(Buffer.from(await file.arrayBuffer()));
  expect(parsed.text).toContain('Revenue by year, EUR millions');
  const list = await listShares(host, owner.accessToken, trackingId);
  expect(list.status).toBe(200);
  const body = (await list.json()) as { shares: { shareId: string; views: number; status: string; lastViewedAt: string | null }[] };
  expect(body.shares).toEqual([expect.objectContaining({ shareId: share.shareId, status: 'active', views: 2, lastViewedAt: expect.any(String) })]);
  // Views at the same moment are each counted (one conditional increment each).
  await Promise.all(Array.from({ length: 5 }, () => page(share.token).then((r) => r.text())));
  const after = (await (await listShares(host, owner.accessToken, trackingId)).json()) as { shares: { views: number }[] };
  expect(after.shares[0].views).toBe(7);
});

test('an unknown or malformed token answers the 404 page', async () => {
  for (const token of ['A'.repeat(43), 'short', 'x'.repeat(200)]) {
    const response = await page(token);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-robots-tag')).toMatch(/noindex/);
    expect(await response.text()).toContain('<h1>This link does not exist</h1>');
  }
  expect((await host.fetch(`/orchestrator/r/${'A'.repeat(43)}/pdf`, { redirect: 'manual' })).status).toBe(404);
});

test('malformed bodies answer 400 JSON', async () => {
  for (const body of [{ expiresInDays: 0 }, { expiresInDays: 31 }, { expiresInDays: '7' }, { expiresInDays: 1.5 }, {}, { expiresInDays: 7, extra: 1 }])
    await expectErrorAnswer(await postShare(host, owner.accessToken, trackingId, body), 400, 'VALIDATION_FAILED');
  await expectErrorAnswer(await postShare(host, owner.accessToken, trackingId, '{"expiresInDays": '), 400, 'INVALID_JSON');
});

test('nobody but the owner creates, lists or revokes a link: the same 404 as an unknown report, admins included', async () => {
  const admin = await signInAdmin(host);
  for (const user of [other, admin]) {
    await expectErrorAnswer(await postShare(host, user.accessToken, trackingId, { expiresInDays: 7 }), 404, 'REPORT_NOT_FOUND');
    await expectErrorAnswer(await listShares(host, user.accessToken, trackingId), 404, 'REPORT_NOT_FOUND');
    await expectErrorAnswer(await revokeShare(host, user.accessToken, trackingId, share.shareId), 404, 'REPORT_NOT_FOUND');
  }
  await expectErrorAnswer(await postShare(host, owner.accessToken, 'rpt-unknown', { expiresInDays: 7 }), 404, 'REPORT_NOT_FOUND');
  await expectErrorAnswer(await revokeShare(host, owner.accessToken, trackingId, 'shr_000000000000000000000000'), 404, 'SHARE_NOT_FOUND');
  const anonymous = await host.fetch(`/orchestrator/api/reports/${trackingId}/shares`);
  expect(anonymous.status).toBe(401);
  // The link still opens: none of that touched it.
  expect((await page(share.token)).status).toBe(200);
});

test('a report still processing, or made before shared pages, cannot be shared (409)', async () => {
  await storeExecution('rpt-share-processing', 'free', { userId: owner.user.id });
  await expectErrorAnswer(await postShare(host, owner.accessToken, 'rpt-share-processing', { expiresInDays: 7 }), 409, 'REPORT_NOT_SHAREABLE');
  await storeExecution('rpt-share-old', 'free', { userId: owner.user.id });
  const assets = [{ kind: 'pdf', blob: 'rpt-share-old/1/old-report.pdf', contentType: 'application/pdf', fileName: 'old-report.pdf', size: 10 }];
  await db()
    .updateTable('orchestrator_executions')
    .set({ processing_status: 'completed', progress_percentage: 100, assets: JSON.stringify(assets) })
    .where('tracking_id', '=', 'rpt-share-old')
    .execute();
  await expectErrorAnswer(await postShare(host, owner.accessToken, 'rpt-share-old', { expiresInDays: 7 }), 409, 'REPORT_NOT_SHAREABLE');
});

test('a revoked link answers the 410 page (page and PDF), counts nothing more, and is listed as revoked', async () => {
  const revoked = await revokeShare(host, owner.accessToken, trackingId, share.shareId);
  expect(revoked.status).toBe(200);
  const body = (await revoked.json()) as { share: { status: string; revokedAt: string; views: number } };
  expect(body.share).toMatchObject({ status: 'revoked', revokedAt: expect.any(String), views: 8 });
  const gone = await page(share.token);
  expect(gone.status).toBe(410);
  expect(gone.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(gone.headers.get('cache-control')).toBe('no-store');
  expect(await gone.text()).toContain('<h1>This link has been revoked</h1>');
  expect((await host.fetch(`/orchestrator/r/${share.token}/pdf`, { redirect: 'manual' })).status).toBe(410);
  // Revoking again changes nothing.
  const again = (await (await revokeShare(host, owner.accessToken, trackingId, share.shareId)).json()) as typeof body;
  expect(again.share).toEqual(body.share);
  const list = (await (await listShares(host, owner.accessToken, trackingId)).json()) as { shares: { status: string; views: number }[] };
  expect(list.shares).toEqual([expect.objectContaining({ status: 'revoked', views: 8 })]);
});

test('a link past its expiry answers the 410 page (the clock moved past it)', async () => {
  const short = await createShare(host, owner.accessToken, trackingId, 1);
  expect((await page(short.token)).status).toBe(200);
  offset = DAY - 1000;
  expect((await page(short.token)).status).toBe(200);
  offset = DAY + 1000;
  const gone = await page(short.token);
  expect(gone.status).toBe(410);
  expect(await gone.text()).toContain('<h1>This link has expired</h1>');
  expect((await host.fetch(`/orchestrator/r/${short.token}/pdf`, { redirect: 'manual' })).status).toBe(410);
  const row = await db().selectFrom('orchestrator_report_shares').select('views').where('share_id', '=', short.shareId).executeTakeFirstOrThrow();
  expect(Number(row.views)).toBe(2);
  offset = 0;
  const list = (await (await listShares(host, owner.accessToken, trackingId)).json()) as { shares: { shareId: string; status: string }[] };
  expect(list.shares.find((s) => s.shareId === short.shareId)?.status).toBe('active');
});
