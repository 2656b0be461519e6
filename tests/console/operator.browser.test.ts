import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { currentPlatform } from '../../shared/platform';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { waitFor } from '../helpers/wait';
import { startChatServer, type ChatServer } from '../orchestrator/chat-server';
import { ACME, storeExecution } from '../orchestrator/helpers';
import { deadUrl } from '../payment/helpers';
import {
  accessibilityViolations,
  advanceClock,
  installPageClock,
  launchBrowser,
  screenshot,
  signInThroughPage,
  textOf,
  waitForText,
  watchPage,
} from './browser';

/**
 * The console as an on-call operator uses it while reports fail because the AI endpoint is
 * unreachable, in Chromium at 1400 px and at 390 px: diagnostics says the orchestrator is
 * degraded and why; the failed execution's page says what failed, where and when (one row per
 * step), and its Retry ends in a completed report; search finds it by tracking id and by the
 * requester's email; two tabs stay signed in through reloads past a token's lifetime; every page
 * fits a phone and its skip link reaches its main region; destructive buttons ask first.
 */
jest.setTimeout(180_000);

const DESKTOP = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
let host: TestHost;
let chat: ChatServer;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let admin: SignedIn;
let buyer: SignedIn;
let failedId: string;
const refreshAnswers: number[] = [];

const CONSOLE = () => `${host.url}/orchestrator/console/`;
let adminSince = 0;
/** The test's own admin token, refreshed before it expires (tokens live 60 s here). */
async function adminToken(): Promise<string> {
  if (Date.now() - adminSince > 40_000) {
    const res = await host.fetch('/identity/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: admin.refreshToken }),
    });
    expect(res.status).toBe(200);
    admin = (await res.json()) as SignedIn;
    adminSince = Date.now();
  }
  return admin.accessToken;
}
const api = async (apiPath: string) => {
  const res = await host.fetch(apiPath, { headers: bearer(await adminToken()) });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
};
const global = (p: Page, script: string) => p.evaluate(script);

/** Follows every refresh answer of a page (the status), to show no refresh was refused. */
function watchRefreshes(p: Page) {
  p.on('response', (response) => {
    if (response.url().endsWith('/identity/auth/refresh') && response.request().method() === 'POST') refreshAnswers.push(response.status());
  });
}

beforeAll(async () => {
  chat = await startChatServer();
  host = await startTestHost({
    env: {
      ORCHESTRATOR_AI_ENDPOINT: chat.url,
      ORCHESTRATOR_AI_TIMEOUT_MS: '2000',
      ORCHESTRATOR_AI_MAX_RETRIES: '0',
      ORCHESTRATOR_LOG_FLUSH_MS: '20',
      // The shortest access token identity allows: the tabs outlive several.
      ACCESS_TOKEN_TTL_SECONDS: '60',
      SESSION_CHECK_CACHE_SECONDS: '0',
    },
  });
  admin = await signInAdmin(host);
  adminSince = Date.now();
  buyer = await signIn(host, 'on-call-buyer@example.com');
  browser = await launchBrowser();
  page = await browser.newPage();
  await installPageClock(page);
  await page.setViewport(DESKTOP);
  watched = watchPage(page);
  watchRefreshes(page);
  await browser.defaultBrowserContext().overridePermissions(host.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await chat?.close();
});

afterEach(() => {
  expect(watched.problems).toEqual([]);
});

test('the admin signs in; the AI endpoint goes away and a report fails on it', async () => {
  await page.goto(CONSOLE());
  await signInThroughPage(page, host, 'admin@example.com');
  await page.waitForSelector('nav[aria-label=Console]');
  expect(await textOf(page, 'nav[aria-label=Console] a[aria-current=page]')).toBe('Overview');
  currentPlatform().reconfigure({ ORCHESTRATOR_AI_ENDPOINT: (await deadUrl()).replace(/\/identity$/, '/v1') });
  const ordered = await host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(buyer.accessToken) },
    body: JSON.stringify(ACME),
  });
  expect(ordered.status).toBe(202);
  failedId = ((await ordered.json()) as { trackingId: string }).trackingId;
  await waitFor(async () => ((await api(`/orchestrator/api/admin/status/${failedId}`)).status === 'failed' ? true : undefined), 30_000, 'the report to fail');
});

test('diagnostics reports the orchestrator degraded while the AI endpoint is unreachable, with the reason', async () => {
  await page.click('nav[aria-label=Console] a ::-p-text(Diagnostics)');
  const row = await page.waitForSelector('tr[data-service=orchestrator][data-status=degraded]');
  const text = await row!.evaluate((el) => (el as unknown as { innerText: string }).innerText);
  expect(text).toMatch(/ai: unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+/);
  expect(text).toContain('ai: FAILING');
  expect(await textOf(page, 'tr[data-service=identity]')).toContain('healthy');
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'diagnostics');
  // The enhanced test asks first; keeping it runs nothing.
  await page.click('button ::-p-text(Run the enhanced orchestrator test)');
  await page.waitForSelector('dialog[open]');
  await page.click('dialog[open] button ::-p-text(Keep it)');
  expect(await page.$('dialog[open]')).toBeNull();
  expect(await page.$('[data-result=enhanced-orchestrator]')).toBeNull();
});

test('search finds the failed execution by tracking id and by the requester’s email, with copy buttons and a CSV of the list', async () => {
  await page.click('nav[aria-label=Console] a ::-p-text(Executions)');
  await page.waitForSelector('#find-text');
  await page.select('#find-field', 'tracking');
  await page.type('#find-text', failedId.slice(0, 12));
  await page.click('form.filters button[type=submit]');
  // The list shown before Apply (every execution) gives way to the filtered one's loading state in the same render.
  await page.waitForFunction(() => (globalThis as any).location.search.includes('q='));
  await page.waitForSelector(`tr[data-tracking-id="${failedId}"][data-status=failed]`);
  expect(await page.$$eval('tr[data-tracking-id]', (rows) => rows.length)).toBe(1);
  // Requested by names the person.
  expect(await textOf(page, `tr[data-tracking-id="${failedId}"]`)).toContain('on-call-buyer@example.com');
  await page.click(`tr[data-tracking-id="${failedId}"] button.copy`);
  await waitForText(page, 'Copied');
  expect(await global(page, 'navigator.clipboard.readText()')).toBe(failedId);

  await page.select('#find-field', 'email');
  await page.$eval('#find-text', (el) => ((el as unknown as { value: string }).value = ''));
  await page.type('#find-text', 'on-call-buyer@');
  await page.select('#status-filter', 'failed');
  await page.select('#error-filter', 'AI_SERVICE');
  await page.select('#range-filter', '24h');
  await page.click('form.filters button[type=submit]');
  await page.waitForFunction(() => (globalThis as any).location.search.includes('field=email'));
  await page.waitForSelector(`tr[data-tracking-id="${failedId}"]`);
  // The failures of the range can be retried in bulk; the count is what the API counts.
  await waitForText(page, '1 failed execution created from');

  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'console-csv-'));
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  await page.click('button ::-p-text(Download this list)');
  const file = await waitFor(async () => fs.readdirSync(downloads).find((f) => f.endsWith('.csv')), 10_000, 'the CSV file');
  const csv = fs.readFileSync(path.join(downloads, file), 'utf8').split('\r\n');
  expect(csv[0]).toBe(
    '"tracking_id","company","status","progress_percent","requested_by","created_at","completed_at","duration_ms","attempts","error_pattern","error_message"',
  );
  expect(csv[1]).toContain(`"${failedId}","Acme Widgets GmbH","failed"`);
  expect(csv[1]).toContain('"on-call-buyer@example.com"');
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'executions');
});

test('the failed execution’s page: failed (not completed), where and when, one row per step in milliseconds; its retry ends in a completed report', async () => {
  await page.click(`tr[data-tracking-id="${failedId}"] a[href$="${failedId}"]`);
  await page.waitForSelector('table.steps');
  const status = await api(`/orchestrator/api/admin/status/${failedId}`);
  const { completed_steps: done, total_steps: total } = status.data.processing_metrics;
  expect(total).toBe(11); // the free plan's workflow: eight stages and three sections, however far the run got
  expect(await textOf(page, '[data-field=ended-label]')).toBe('Failed');
  expect(await textOf(page, '[data-field=progress]')).toContain(`(${done} of ${total} steps)`);
  await waitForText(page, 'No report: the execution failed. Retry it to produce one.');
  expect(await textOf(page, '[data-field=requested-by]')).toBe('on-call-buyer@example.com');
  // The failed step comes first, with its classified error.
  const classified = status.data.logs.find((l: { error_pattern: string | null }) => l.error_pattern);
  expect(classified).toMatchObject({ step_name: 'SECTION_EXECUTIVE_SUMMARY', error_pattern: 'AI_SERVICE' });
  const firstFailure = await page.$eval('section[aria-labelledby=steps-heading] > h2 + *', (el) => el.getAttribute('data-failed-step'));
  expect(firstFailure).toBe(classified.step_name);
  expect(await textOf(page, '[data-failed-step]')).toMatch(/AI_SERVICE/);
  // One row per step (each logged step once), each with a start, an end and a duration in ms.
  const rows = await page.$$eval('table.steps tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-step')));
  expect(new Set(rows).size).toBe(rows.length);
  expect(rows).toEqual([...new Set(status.data.logs.map((l: { step_name: string }) => l.step_name))]);
  for (const duration of await page.$$eval('table.steps [data-field=duration]', (tds) => tds.map((td) => td.textContent))) {
    expect(duration).toMatch(/^\d[\d,]* ms$/);
  }
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'execution-failed');

  // The endpoint is back: Retry from the page, and the same tracking id completes with its report.
  currentPlatform().reconfigure({ ORCHESTRATOR_AI_ENDPOINT: chat.url });
  chat.script([{ status: 200 }]);
  await page.click('section[aria-labelledby=actions-heading] button ::-p-text(Retry)');
  await waitForText(page, 'Retry queued');
  // The run completes on the server; the page shows it at its next 10-second refresh.
  await waitFor(
    async () => ((await api(`/orchestrator/api/admin/status/${failedId}`)).status === 'completed' ? true : undefined),
    60_000,
    'the retry to complete',
  );
  await advanceClock([page], 10_000);
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-field=status]')?.textContent === 'completed', { timeout: 5_000 });
  await page.waitForSelector('a[download]');
  expect(await textOf(page, '[data-field=ended-label]')).toBe('Completed');
  expect(await textOf(page, '[data-field=progress]')).toContain(`(${total} of ${total} steps)`);
  await waitForText(page, 'Retried by admin@example.com');
  await waitForText(page, 'Earlier run 1');
  await screenshot(page, 'execution-detail');
});

test('two tabs of one browser share one session through reloads past the token lifetime, and a refresh whose answer was lost', async () => {
  const second = await browser.newPage();
  await installPageClock(second);
  await second.setViewport(DESKTOP);
  const secondProblems = watchPage(second);
  watchRefreshes(second);
  const signedIn = async (p: Page) => {
    await p.waitForSelector('nav[aria-label=Console]', { timeout: 15_000 });
    await p.waitForSelector('[data-metric=total]', { timeout: 15_000 });
    expect(await p.$('#email')).toBeNull();
  };
  // A new tab is signed in: no code, no refresh.
  const before = refreshAnswers.length;
  await second.goto(CONSOLE());
  await signedIn(second);
  expect(refreshAnswers.length).toBe(before);

  const sessionsBefore = (await api(`/identity/admin/sessions?userId=${admin.user.id}&state=active`)).total;
  // 75 s of the browser's time, a reload every 5 s, the tabs in turn: past the 60 s token, and past its renewal 30 s before it expires.
  for (let round = 1; round <= 15; round++) {
    const tab = round % 2 ? second : page;
    await tab.goto(`${CONSOLE()}?round=${round}`);
    await signedIn(tab);
    await advanceClock([page, second], 5_000);
  }
  // A refresh whose answer never reached the browser (a reload mid-flight): the rotated token is all it kept.
  await page.evaluate(async () => {
    const g = globalThis as any;
    const stored = JSON.parse(g.localStorage.getItem('console.session'));
    await g.fetch('../../identity/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: stored.refreshToken }),
    });
    g.localStorage.setItem('console.session', JSON.stringify({ ...stored, expiresAt: 0 }));
  });
  await page.reload();
  await signedIn(page);
  await second.reload();
  await signedIn(second);

  expect(refreshAnswers.filter((status) => status !== 200)).toEqual([]);
  // A renewal per 30 s for the browser, not one per tab or load (16 loads): about three in 80 s, the lost one and its repeat,
  // and a repeat for each reload that cut a renewal's answer off.
  expect(refreshAnswers.length - before).toBeLessThanOrEqual(8);
  // And at least the two the token's lifetime needs in 75 s (at 30 and 60 s), the lost one and its repeat.
  expect(refreshAnswers.length - before).toBeGreaterThanOrEqual(4);
  expect((await api(`/identity/admin/sessions?userId=${admin.user.id}&state=active`)).total).toBe(sessionsBefore);
  const audit = await api(`/identity/admin/audit?actor=${admin.user.id}&action=auth.refresh&limit=100`);
  expect(audit.entries.filter((e: { result: string }) => e.result === 'failure')).toEqual([]);

  // Signing out in one tab signs out the other, with a notice that is not a success.
  await second.click('button ::-p-text(Sign out)');
  await page.waitForSelector('#email');
  expect(await page.$eval('main p[role=status]', (el) => el.className)).toBe('warning');
  await waitForText(page, 'Your session has ended in this browser');
  // Back after sign-out shows the sign-in page, not the last page's data.
  await second.goBack();
  await second.waitForSelector('#email');
  expect(await second.$('nav[aria-label=Console]')).toBeNull();
  expect(secondProblems.problems).toEqual([]);
  await second.close();
});

const PAGES: [string, () => string][] = [
  ['Overview', () => ''],
  ['Executions', () => 'executions'],
  ['Execution', () => `executions/${failedId}`],
  ['Failures', () => 'failures'],
  ['Users', () => 'users'],
  ['User', () => `users/${buyer.user.id}`],
  ['Payments', () => 'payments'],
  ['Accounts', () => 'accounts'],
  ['Webhooks', () => 'webhooks'],
  ['Diagnostics', () => 'diagnostics'],
];

test('at 390 px every page fits the width (tables become stacked rows), and its skip link focuses its main region', async () => {
  await page.goto(CONSOLE());
  if (await page.waitForSelector('#email, nav[aria-label=Console]').then((el) => el!.evaluate((e) => e.id === 'email'))) {
    await signInThroughPage(page, host, 'admin@example.com');
  }
  await page.waitForSelector('nav[aria-label=Console]');
  await page.setViewport(PHONE);
  for (const [name, address] of PAGES) {
    await page.goto(`${CONSOLE()}${address()}`);
    await page.waitForSelector('main h1');
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('main .loading'), { timeout: 20_000 });
    const widths = await page.evaluate(() => {
      const d = (globalThis as any).document;
      return { page: d.documentElement.scrollWidth, body: d.body.scrollWidth, viewport: d.documentElement.clientWidth };
    });
    expect([name, widths.page, widths.body]).toEqual([name, widths.viewport, widths.viewport]);
    if (['Executions', 'Execution', 'User', 'Accounts', 'Webhooks', 'Diagnostics', 'Overview'].includes(name))
      await screenshot(page, `phone-${name.toLowerCase()}`);
    // Skip link: the first Tab reaches it, Enter moves focus into the page's own main region (no navigation).
    const before = page.url();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'main');
    expect([name, page.url()]).toEqual([name, before]);
  }
  await page.setViewport(DESKTOP);
});

test('ending a session and deactivating a user ask first; keeping it changes nothing', async () => {
  const other = await signIn(host, 'to-keep@example.com');
  await page.goto(`${CONSOLE()}users/${other.user.id}`);
  await page.waitForSelector('section[aria-labelledby=sessions-heading] button ::-p-text(End session)');
  await page.click('section[aria-labelledby=sessions-heading] button ::-p-text(End session)');
  await page.waitForSelector('dialog[open]');
  await page.click('dialog[open] button ::-p-text(Keep it)');
  expect((await api(`/identity/admin/sessions?userId=${other.user.id}&state=active`)).total).toBe(1);
  await page.select('#status', 'inactive');
  await page.click('form.change:has(#status) button ::-p-text(Save status)');
  await page.waitForSelector('dialog[open]');
  expect(await textOf(page, 'dialog[open]')).toContain('to-keep@example.com can no longer sign in');
  await page.click('dialog[open] button ::-p-text(Keep it)');
  expect((await api(`/identity/admin/users/${other.user.id}`)).user.status).toBe('active');
  // Confirmed, it acts.
  await page.click('section[aria-labelledby=sessions-heading] button ::-p-text(End session)');
  await page.click('dialog[open] button ::-p-text(End the session)');
  await waitForText(page, 'Session ended.');
  expect((await api(`/identity/admin/sessions?userId=${other.user.id}&state=active`)).total).toBe(0);
  // The user's page lists their reports.
  await page.goto(`${CONSOLE()}users/${buyer.user.id}`);
  await page.waitForSelector(`section[aria-labelledby=reports-heading] tr[data-tracking-id="${failedId}"]`);
  await screenshot(page, 'user');
});

test('the overview refreshes by itself, and its advice links to the console page that acts on it', async () => {
  // An execution processing for 12 minutes: the long-running alert.
  const stuck = 'rpt-long-running';
  await storeExecution(stuck, 'pro', { now: new Date(Date.now() - 12 * 60_000).toISOString() });
  await page.goto(CONSOLE());
  await page.waitForSelector('[data-metric=total]');
  const calls: number[] = [];
  const count = (request: HTTPRequest) => request.url().includes('/dashboard/overview') && calls.push(Date.now());
  page.on('request', count);
  // The overview refreshes every 30 s.
  await advanceClock([page], 30_000);
  await waitFor(async () => (calls.length > 0 ? true : undefined), 5_000, 'the overview to refresh by itself');
  page.off('request', count);
  expect(await page.$$eval('ul.alerts a', (as) => as.map((a) => a.getAttribute('href')))).toEqual([
    '/orchestrator/console/executions?status=processing&sort=oldest',
  ]);
  await screenshot(page, 'overview');
  await page.click('ul.alerts a');
  await page.waitForSelector(`tr[data-tracking-id="${stuck}"] .badge-long-running`);
});

test('the 10-second refresh never starts a request while the last one waits, and gives up on it after 20 s', async () => {
  await page.goto(`${CONSOLE()}executions`);
  await page.waitForSelector('table.executions');
  const isList = (request: HTTPRequest) => new URL(request.url()).pathname === '/orchestrator/api/admin/executions';
  const held: HTTPRequest[] = [];
  let inFlight = 0;
  let most = 0;
  const onRequest = (request: HTTPRequest) => {
    if (!isList(request)) return void request.continue();
    held.push(request); // never answered
    most = Math.max(most, ++inFlight);
  };
  const onEnd = (request: HTTPRequest) => {
    if (isList(request)) inFlight--;
  };
  await page.setRequestInterception(true);
  page.on('request', onRequest);
  page.on('requestfailed', onEnd);
  try {
    // Refreshes are due at 10, 20 and 30 s; the first one's call gives up at 30 s.
    await advanceClock([page], 31_000);
    await waitForText(page, 'did not answer in time', 5_000);
    expect(most).toBe(1);
    expect(held.length).toBeLessThanOrEqual(2);
    // The list it had stays on screen under the error.
    expect(await page.$('table.executions')).not.toBeNull();
  } finally {
    page.off('request', onRequest);
    page.off('requestfailed', onEnd);
    await page.setRequestInterception(false);
  }
});
