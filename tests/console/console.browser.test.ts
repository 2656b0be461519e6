import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { waitFor } from '../helpers/wait';
import { startChatServer, type ChatServer } from '../orchestrator/chat-server';
import { ACME } from '../orchestrator/helpers';
import { HOUR, insertExecution, insertLog } from '../orchestrator-admin/fixtures';
import { deadUrl, deliver, paymentIntentObject, pointIdentityAt, stripeEvent } from '../payment/helpers';
import { accessibilityViolations, goToPage, launchBrowser, screenshot, signInThroughPage, textOf, waitForText, watchPage } from './browser';
import { expectErrorAnswer } from '../helpers/errors';
import { db } from '../../shared/sql/db';

/**
 * The administration console in headless Chromium against the dev host: real sign-in with the
 * emailed code, every page, live updates without reloads, changes that land in identity and
 * payment, accessibility (axe-core) and the page's Content-Security-Policy (any violation fails).
 * The tests run in order and share one signed-in page, as an admin's working session would.
 * Functions passed to page.evaluate run in the browser; they reach its globals (document,
 * location, sessionStorage) through globalThis, since the tests compile without the DOM library.
 */
jest.setTimeout(120_000);

const TIME_ZONE = 'Australia/Adelaide';
let host: TestHost;
let chat: ChatServer;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
const refreshes: number[] = [];
const trendRequests: string[] = [];
let admin: SignedIn;

const CONSOLE = () => `${host.url}/orchestrator/console/`;
const api = async (path: string, token: string) => {
  const res = await host.fetch(path, { headers: bearer(token) });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
};
const goTo = (label: string) => goToPage(page, label);
const expectAccessible = async () => expect(await accessibilityViolations(page)).toEqual([]);

beforeAll(async () => {
  chat = await startChatServer();
  host = await startTestHost({
    env: {
      ORCHESTRATOR_AI_ENDPOINT: chat.url,
      ORCHESTRATOR_AI_TIMEOUT_MS: '12000',
      ORCHESTRATOR_AI_MAX_RETRIES: '2',
      ORCHESTRATOR_LOG_FLUSH_MS: '20',
      ACCESS_TOKEN_TTL_SECONDS: '60',
      PAYMENT_SYNC_TIMEOUT_MS: '800',
      PAYMENT_SYNC_MAX_ATTEMPTS: '1',
      // Every session check asks identity, so the pages see identity going away at once (the cache bound is tested in tests/orchestrator/live-session).
      SESSION_CHECK_CACHE_SECONDS: '0',
    },
  });
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.emulateTimezone(TIME_ZONE);
  watched = watchPage(page);
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/identity/auth/refresh')) refreshes.push(Date.now());
    if (request.url().includes('/dashboard/trend-chart')) trendRequests.push(request.url());
  });
  admin = await signInAdmin(host);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await chat?.close();
});

afterEach(() => {
  // No Content-Security-Policy violation or script error on any page.
  expect(watched.problems).toEqual([]);
});

test('the sign-in page is served with a strict policy and is accessible', async () => {
  const response = await page.goto(CONSOLE());
  expect(response!.status()).toBe(200);
  expect(response!.headers()['content-security-policy']).toMatch(/script-src 'self'/);
  await page.waitForSelector('#email');
  await expectAccessible();
  await screenshot(page, 'sign-in');
});

test('a plain user is turned away, and the session the code opened is ended', async () => {
  await signInThroughPage(page, host, 'plain-user@example.com');
  await waitForText(page, 'The console is for the admin and super_admin roles only');
  expect(await page.$('nav[aria-label=Console]')).toBeNull();
  const users = await api('/identity/admin/users?email=plain-user', admin.accessToken);
  const sessions = await api(`/identity/admin/sessions?userId=${users.users[0].id}&state=active`, admin.accessToken);
  expect(sessions.total).toBe(0);
  await screenshot(page, 'turned-away');
});

test('an admin signs in with the emailed code and sees an empty platform', async () => {
  await page.goto(CONSOLE());
  await signInThroughPage(page, host, 'admin@example.com');
  await page.waitForSelector('nav[aria-label=Console]');
  await waitForText(page, 'No report executions in the last 7 days yet.');
  expect(await textOf(page, '[data-metric=total]')).toBe('0');
  expect(await textOf(page, 'footer')).toContain(TIME_ZONE);
  await goTo('Executions');
  await waitForText(page, 'No report has been ordered yet.');
  await goTo('Payments');
  await waitForText(page, 'Every payment is synced with identity.');
});

test('a report ordered by a user appears and completes on the executions page without a reload', async () => {
  const user = await signIn(host, 'buyer@example.com');
  await goTo('Executions');
  // The filter survives the page's own 10-second refreshes: only Acme's executions are asked for.
  await page.type('#find-text', 'acme widgets');
  await page.click('form.filters button[type=submit]');
  await page.waitForFunction(() => (globalThis as any).location.search.includes('q=acme'));
  await page.evaluate(() => ((globalThis as any).__notReloaded = true));

  chat.script(['hang', { status: 200 }]); // the first AI call hangs until its 12 s deadline: the execution is seen processing
  const ordered = await host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify(ACME),
  });
  expect(ordered.status).toBe(202);
  const { trackingId } = (await ordered.json()) as { trackingId: string };

  await page.waitForSelector(`tr[data-tracking-id="${trackingId}"][data-status=processing]`, { timeout: 25_000 });
  await screenshot(page, 'first-run-executions');
  await page.waitForSelector(`tr[data-tracking-id="${trackingId}"][data-status=completed]`, { timeout: 45_000 });
  expect(await page.evaluate(() => (globalThis as any).__notReloaded)).toBe(true);
  expect(await page.$eval('#find-text', (el) => (el as { value?: string }).value)).toBe('acme widgets');
  await expectAccessible();

  // Its steps: one row per step of the processing log (started and completed paired), and the report to download.
  await page.click(`tr[data-tracking-id="${trackingId}"] a[href$="${trackingId}"]`);
  await page.waitForSelector('table.steps tr[data-step=WORKFLOW_START]');
  const status = await api(`/orchestrator/api/admin/status/${trackingId}`, admin.accessToken);
  const steps = await page.$$eval('table.steps tbody tr', (rows) => rows.map((tr) => [tr.getAttribute('data-step'), tr.getAttribute('data-status')]));
  const logged = status.data.logs.filter((l: { status: string }) => l.status === 'completed').map((l: { step_name: string }) => [l.step_name, 'completed']);
  expect(steps.sort()).toEqual(logged.sort());
  expect(await textOf(page, '[data-field=status]')).toBe('completed');
  expect(await textOf(page, '[data-field=progress]')).toContain('(11 of 11 steps)'); // a free plan's workflow
  // Each duration is the logged one, in milliseconds.
  const start = status.data.logs.find((l: { step_name: string; status: string }) => l.step_name === 'WORKFLOW_START' && l.status === 'completed');
  expect(await textOf(page, 'tr[data-step=WORKFLOW_START] [data-field=duration]')).toBe(`${start.duration_ms} ms`);
  // Times are in the browser's zone: the first step's start is what a browser in Adelaide shows for its instant, to the millisecond.
  const [iso, shown] = await page.$eval('table.steps time', (t) => [t.getAttribute('dateTime')!, t.textContent!]);
  const inZone = new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3 });
  expect(shown).toBe(inZone.format(new Date(iso)));
  expect(await page.$$eval('a[download]', (links) => links.length)).toBe(status.data.downloads.length);
  await expectAccessible();
  await screenshot(page, 'first-run-execution-detail');
});

test('after Apply, the list of the filters before it is not shown while the new answer is on its way', async () => {
  await goTo('Executions');
  await page.$eval('#find-text', (el) => ((el as unknown as { value: string }).value = ''));
  await page.click('form.filters button[type=submit]');
  await page.waitForSelector('tr[data-tracking-id]');
  // Every frame painted from here on: does one show rows under the new filter before its answer came?
  await page.evaluate(() => {
    const g = globalThis as any;
    g.__staleFrames = 0;
    g.__watching = true;
    const tick = () => {
      if (g.location.search.includes('q=no') && g.document.querySelector('tr[data-tracking-id]')) g.__staleFrames++;
      if (g.__watching) g.requestAnimationFrame(tick);
    };
    g.requestAnimationFrame(tick);
  });
  const release = await interceptApi('hold');
  try {
    await page.type('#find-text', 'no such company');
    await page.click('form.filters button[type=submit]');
    await waitForText(page, 'Loading executions');
    expect(await page.evaluate(() => (globalThis as any).location.search)).toContain('q=no');
    await screenshot(page, 'executions-after-apply');
  } finally {
    await release();
  }
  await waitForText(page, 'No execution matches the filter.');
  const stale = await page.evaluate(() => {
    const g = globalThis as any;
    g.__watching = false;
    return g.__staleFrames;
  });
  expect(stale).toBe(0);
});

test('the overview shows the numbers of the administration API, and the trend drawn by the visual service', async () => {
  await goTo('Overview');
  await page.waitForSelector('img.chart');
  const overview = (await api('/orchestrator/api/admin/dashboard/overview', admin.accessToken)).dashboard;
  expect(await textOf(page, '[data-metric=score]')).toContain(String(overview.health.score));
  expect(await textOf(page, '[data-metric=score]')).toContain(overview.health.status);
  expect(await textOf(page, '[data-metric=success-rate]')).toBe(`${overview.health.success_rate}%`);
  expect(await textOf(page, '[data-metric=total]')).toBe(String(overview.health.total_executions));
  expect(overview.health.total_executions).toBe(1);
  const seconds = (overview.health.avg_processing_time_ms / 1000).toFixed(1);
  expect(await textOf(page, '[data-metric=avg-time]')).toMatch(new RegExp(`^(${seconds} s|\\d+ min \\d+ s)$`));
  // The chart is an SVG from the orchestrator's trend route, asked for in the browser's time zone.
  expect(await page.$eval('img.chart', (img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
  expect(new URL(trendRequests.at(-1)!).searchParams.get('tz')).toBe(TIME_ZONE);
  await expectAccessible();
  await screenshot(page, 'first-run-overview');
});

test('the failures page shows the analysis of the API, messages as text, per timeframe', async () => {
  await goTo('Failures');
  await waitForText(page, 'No failures since');
  // A failed execution with two failed AI steps, one message carrying markup that must stay text.
  const failedId = await insertExecution({ processing_status: 'failed', company_name: 'Broken Co', createdAgo: 2 * HOUR });
  await insertLog({ tracking_id: failedId, atAgo: 2 * HOUR, error_message: 'AI request failed <img src=x data-injected=1>' });
  await insertLog({ tracking_id: failedId, atAgo: 2 * HOUR - 1000, error_message: 'AI request failed again' });
  await page.reload();
  await page.waitForSelector('ol.recommendations li');
  const analysis = (await api('/orchestrator/api/admin/dashboard/failures?timeframe=24h', admin.accessToken)).failure_analysis;
  const text = await textOf(page, 'main');
  for (const r of analysis.troubleshooting_recommendations) expect(text).toContain(r.recommendation);
  for (const p of analysis.error_patterns) expect(text).toContain(p.error_pattern);
  expect(text).toContain('AI request failed <img src=x data-injected=1>');
  expect(await page.$('[data-injected]')).toBeNull();
  expect(await page.$(`a[href$="/executions/${failedId}"]`)).not.toBeNull();
  await expectAccessible();
  await screenshot(page, 'failures');
  await page.click('input[value="30d"]');
  await page.waitForFunction(() => (globalThis as any).location.search === '?timeframe=30d');
  await waitForText(page, `${analysis.total_errors} failed steps and 1 failed execution since`);
});

test("an admin changes a user's plan and identity has it", async () => {
  const buyer = await api('/identity/admin/users?email=buyer@example.com', admin.accessToken);
  await goTo('Users');
  await page.type('#user-email', 'buyer@');
  await page.click('form.filters button[type=submit]');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('tr[data-user-id]').length === 1);
  await page.click(`tr[data-user-id="${buyer.users[0].id}"] a`);
  await page.waitForSelector('#plan:not([disabled])');
  await page.select('#plan', 'enterprise');
  await page.click('form.change:has(#plan) button[type=submit]');
  await waitForText(page, 'Plan changed to enterprise.');
  expect((await api(`/identity/admin/users/${buyer.users[0].id}`, admin.accessToken)).user.plan).toBe('enterprise');
  await waitForText(page, 'user.update'); // the audit trail shows the change
  await expectAccessible();
  await screenshot(page, 'first-run-user');
});

test('a plan sync that exhausted its retries (identity down) waits in manual review: Replay leaves it out, Approve with a reason pushes it, and the decision is shown', async () => {
  const payer = await signIn(host, 'payer@example.com');
  pointIdentityAt(await deadUrl());
  try {
    const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_console_1', { userId: payer.user.id, planType: 'pro', amount: 2900 }));
    expect((await deliver(host, event)).body.sync.success).toBe(false);
    // With identity out of reach the payment service cannot confirm the admin: the page says so and offers a retry.
    await goTo('Payments');
    await waitForText(page, 'IDENTITY_UNAVAILABLE');
    expect(await page.$('[role=alert] button ::-p-text(Retry)')).not.toBeNull();
  } finally {
    pointIdentityAt(undefined);
  }
  await page.click('[role=alert] button ::-p-text(Retry)');
  // PAYMENT_SYNC_MAX_ATTEMPTS is 1: the payment is in manual review, listed apart from the failed syncs.
  const row = 'section[aria-labelledby=review-heading] tr[data-payment-id=pi_console_1][data-sync-state=manual_review]';
  await page.waitForSelector(row);
  expect(await textOf(page, row)).toContain('Identity service unavailable');
  expect(await page.$('section[aria-labelledby=unsynced-heading] tr[data-payment-id=pi_console_1]')).toBeNull();
  // Replay says it leaves manual review out, and has nothing else to replay.
  expect(await textOf(page, 'section[aria-labelledby=replay-heading]')).toContain(
    'Payments in manual review are not included: each waits for an approval or a rejection below.',
  );
  const replayButton = await page.$eval('section[aria-labelledby=replay-heading] button', (b) => ({
    text: (b.textContent ?? '').trim(),
    disabled: (b as unknown as { disabled: boolean }).disabled,
  }));
  expect(replayButton).toEqual({ text: 'Replay 0 plan syncs', disabled: true });
  await expectAccessible();

  // Approve asks for the reason: its confirm button stays disabled until there is one.
  await page.click(`${row} button ::-p-text(Approve)`);
  await page.waitForSelector('dialog[open] textarea');
  expect(await page.$eval('dialog[open] button[type=submit]', (b) => (b as unknown as { disabled: boolean }).disabled)).toBe(true);
  await expectAccessible();
  await page.type('dialog[open] textarea', 'Identity is back; the customer paid for Pro');
  await page.click('dialog[open] button ::-p-text(Approve and push the plan)');
  await waitForText(page, 'Approved pi_console_1: identity now has pro.');
  expect((await api('/identity/auth/validate', payer.accessToken)).user.plan).toBe('pro');
  await waitForText(page, 'Every payment is synced with identity.');
  const decision = await textOf(page, 'tr[data-decision-for=pi_console_1]');
  for (const part of ['approved', 'admin@example.com', 'Identity is back; the customer paid for Pro', 'Identity service unavailable'])
    expect(decision).toContain(part);
});

test('a payment of 1 cent for Enterprise is held for review and rejected from the page with a reason; the plan stays as it was', async () => {
  const prober = await signIn(host, 'prober@example.com');
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_console_probe', { userId: prober.user.id, planType: 'enterprise', amount: 1 }));
  expect((await deliver(host, event)).body.action).toBe('manual_review');
  await goTo('Users');
  await goTo('Payments');
  const row = 'section[aria-labelledby=review-heading] tr[data-payment-id=pi_console_probe][data-sync-state=manual_review]';
  expect(await textOf(page, row)).toContain('unrecorded payment of 1 usd for the enterprise plan, which costs 9900 usd');
  await expectAccessible();
  await screenshot(page, 'payments');
  await page.click(`${row} button ::-p-text(Reject)`);
  await page.waitForSelector('dialog[open] textarea');
  await page.type('dialog[open] textarea', 'One cent for Enterprise: not a purchase');
  await page.click('dialog[open] button ::-p-text(Reject it)');
  await waitForText(page, 'Rejected pi_console_probe: the user’s plan is unchanged.');
  const decision = await textOf(page, 'tr[data-decision-for=pi_console_probe]');
  for (const part of ['rejected', 'enterprise', 'admin@example.com', 'One cent for Enterprise: not a purchase']) expect(decision).toContain(part);
  expect((await api('/identity/auth/validate', prober.accessToken)).user.plan).toBe('free');
  await waitForText(page, 'Every payment is synced with identity.');
});

test('webhooks: a failed delivery is listed with its answer and re-sent from the page', async () => {
  // A receiver on loopback: reachable with the local setting on (as on a laptop).
  const answers = [500];
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const status = answers.shift() ?? 200;
      response.writeHead(status).end(status === 200 ? 'ok' : 'receiver down');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  host.platform.reconfigure({ ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'true' });
  try {
    const first = await signIn(host, 'hooked@example.com');
    await db().updateTable('users').set({ plan: 'pro' }).where('id', '=', first.user.id).execute();
    const client = await signIn(host, 'hooked@example.com');
    const post = (path: string, body: unknown) =>
      host.fetch(path, { method: 'POST', headers: { ...bearer(client.accessToken), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { port } = receiver.address() as AddressInfo;
    expect((await post('/orchestrator/api/webhooks/endpoints', { url: `http://127.0.0.1:${port}/hook` })).status).toBe(201);
    const { trackingId } = (await (await post('/orchestrator/api/reports', ACME)).json()) as { trackingId: string };
    await waitFor(
      async () => {
        const list = await api(`/orchestrator/api/admin/webhooks/deliveries?userId=${client.user.id}`, admin.accessToken);
        return list.deliveries[0]?.attempts === 1;
      },
      90_000,
      'the first try of the delivery',
    );
    await goTo('Webhooks');
    const row = `tr:has(a[href$="/executions/${trackingId}"])`;
    await page.waitForSelector(row);
    expect(await textOf(page, row)).toContain('500');
    expect(await textOf(page, row)).toContain('pending');
    await expectAccessible();
    await screenshot(page, 'webhooks');
    await page.click(`${row} button ::-p-text(Re-send)`);
    await waitForText(page, 'Delivered.');
    await page.waitForSelector(`${row} .badge-succeeded`);
  } finally {
    host.platform.reconfigure({ ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'false' });
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});

test('diagnostics: the schema check and both test runs with their results', async () => {
  await goTo('Diagnostics');
  await page.waitForSelector('[data-result=schema] .badge-compatible');
  for (const service of ['identity', 'payment', 'orchestrator', 'visual']) {
    const health = (await (await host.fetch(`/${service}/health`)).json()) as { status: string; dependencies: Record<string, { ok: boolean }> };
    const row = await textOf(page, `tr[data-service=${service}]`);
    expect(row).toContain(health.status);
    for (const [name, d] of Object.entries(health.dependencies)) expect(row).toContain(`${name}: ${d.ok ? 'ok' : 'FAILING'}`);
  }
  await page.click('button ::-p-text(Run the workflow logger test)');
  await page.waitForSelector('[data-result=workflow-logger] .badge-passed');
  await page.click('button ::-p-text(Run the enhanced orchestrator test)');
  await page.click('dialog[open] button ::-p-text(Run it)');
  await page.waitForSelector('[data-result=enhanced-orchestrator] .badge-passed', { timeout: 60_000 });
  await expectAccessible();
  await screenshot(page, 'first-run-diagnostics');
});

const PAGES = [
  { label: 'Overview', what: 'the overview' },
  { label: 'Executions', what: 'executions' },
  { label: 'Failures', what: 'the failure analysis' },
  { label: 'Users', what: 'users' },
  { label: 'Payments', what: 'payments needing attention' },
  { label: 'Accounts', what: 'renewals past due' },
  { label: 'Webhooks', what: 'the webhook deliveries' },
  { label: 'Diagnostics', what: 'the schema check' },
];

/** Holds every API call of the page (not the page's own files) until released, or answers them with an error. */
async function interceptApi(mode: 'hold' | 'fail') {
  const held: HTTPRequest[] = [];
  const onRequest = (request: HTTPRequest) => {
    const url = new URL(request.url());
    const isApi = !url.pathname.startsWith('/orchestrator/console/') && !url.pathname.startsWith('/identity/auth/');
    if (!isApi) return void request.continue();
    if (mode === 'hold') return void held.push(request);
    void request.respond({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'Internal server error', message: 'Simulated outage', code: 'INTERNAL' }),
    });
  };
  await page.setRequestInterception(true);
  page.on('request', onRequest);
  return async () => {
    page.off('request', onRequest);
    for (const request of held) await request.continue().catch(() => undefined);
    await page.setRequestInterception(false);
  };
}

test.each(PAGES)('$label shows a loading state while its answer is slow', async ({ label, what }) => {
  const release = await interceptApi('hold');
  try {
    await goTo(label);
    await waitForText(page, `Loading ${what}`);
  } finally {
    await release();
  }
  await page.waitForFunction((w) => !(globalThis as any).document.body.innerText.includes(`Loading ${w}`), {}, what);
});

test.each(PAGES)('$label shows an API error with a retry that recovers', async ({ label, what }) => {
  const restore = await interceptApi('fail');
  try {
    await goTo(label);
    await waitForText(page, `Could not load ${what}.`);
    await waitForText(page, 'Simulated outage');
  } finally {
    await restore();
  }
  await page.click('[role=alert] button ::-p-text(Retry)');
  await page.waitForFunction((w) => !(globalThis as any).document.body.innerText.includes(`Could not load ${w}`), {}, what);
});

test('keyboard only: skip link, then the navigation, reaches a page', async () => {
  await page.goto(CONSOLE());
  await page.waitForSelector('nav[aria-label=Console]');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Skip to content');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Executions');
  await page.evaluate(() => ((globalThis as any).__notReloaded = true));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (globalThis as any).document.title.startsWith('Executions'));
  // The new page's heading takes focus, so a screen reader announces it.
  await page.waitForFunction(() => (globalThis as any).document.activeElement?.tagName === 'H1', { polling: 100 });
  expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe('Executions');
  expect(await page.evaluate(() => (globalThis as any).__notReloaded)).toBe(true);
});

test('the session refreshes itself before the access token expires, and ends on sign-out', async () => {
  // Tokens live 60 s here; the console renews with 30 s left.
  await waitFor(async () => refreshes.length > 0, 45_000, 'a refresh of the access token');
  await goTo('Users');
  await page.waitForSelector('tr[data-user-id]');
  const refreshToken = await page.evaluate(() => JSON.parse((globalThis as any).localStorage.getItem('console.session')).refreshToken);
  expect(refreshToken).toMatch(/^rt_/);
  await page.click('button ::-p-text(Sign out)');
  await waitForText(page, 'You are signed out.');
  expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('console.session'))).toBeNull();
  const refused = await host.fetch('/identity/auth/refresh', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refreshToken }),
  });
  await expectErrorAnswer(refused, 401, 'REFRESH_TOKEN_INVALID');
});
