import fs from 'node:fs';
import type { Browser, Page } from 'puppeteer-core';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, type SignedIn } from '../helpers/identity';
import { launchBrowser, screenshot, watchPage } from '../console/browser';
import { completedReport, createShare, revokeShare, UNICODE_COMPANY, type ShareCreated } from './share-helpers';

/**
 * The shared report page in headless Chromium, as its reader sees it without an account: at a
 * 390 px phone and a 1280 px desktop, nothing wider than the screen, axe-core without a single
 * violation (any impact), the company's name exact, the charts as inline SVG with their names, no
 * Content-Security-Policy violation; after revoking, the 410 page (accessible too). Functions
 * passed to page.evaluate run in the browser (globalThis: the tests compile without the DOM library).
 */
jest.setTimeout(180_000);

const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
const DESKTOP = { width: 1280, height: 900 };
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let host: TestHost;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let owner: SignedIn;
let trackingId: string;
let share: ShareCreated;

beforeAll(async () => {
  host = await startTestHost({ env: { ORCHESTRATOR_LOG_FLUSH_MS: '20' } });
  owner = await signIn(host, 'page-owner@example.com');
  trackingId = await completedReport(host, owner.accessToken);
  share = await createShare(host, owner.accessToken, trackingId, 7);
  browser = await launchBrowser();
  page = await browser.newPage();
  watched = watchPage(page);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
});

afterEach(() => expect(watched.problems).toEqual([]));

/** Every axe-core violation, whatever its impact. */
async function violations(): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type AxeResult = { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
    const g = globalThis as unknown as { axe: { run: (context: unknown, options: object) => Promise<AxeResult> }; document: unknown };
    const result = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

const layout = () =>
  page.evaluate(() => {
    const d = (globalThis as any).document;
    const w = globalThis as any;
    const charts = [...d.querySelectorAll('figure .chart > svg')].map((svg: any) => ({
      role: svg.getAttribute('role'),
      name: d.getElementById(svg.getAttribute('aria-labelledby'))?.textContent ?? '',
      width: svg.getBoundingClientRect().width,
      caption: svg.closest('figure').querySelector('figcaption')?.textContent ?? '',
    }));
    const scroller = d.querySelector('.scroll');
    return {
      scrollWidth: d.documentElement.scrollWidth,
      innerWidth: w.innerWidth,
      text: d.body.innerText as string,
      h1: d.querySelector('h1').textContent,
      lang: d.documentElement.lang,
      charts,
      table: { box: scroller.clientWidth, content: scroller.scrollWidth },
      pdf: d.querySelector('a.button').href,
    };
  });

for (const [name, viewport] of [
  ['phone (390 px)', PHONE],
  ['desktop (1280 px)', DESKTOP],
] as const) {
  test(`on a ${name}: the whole report, no horizontal overflow, the charts as inline SVG, axe-core clean`, async () => {
    await page.setViewport(viewport);
    const response = await page.goto(share.url);
    expect(response!.status()).toBe(200);
    const seen = await layout();
    expect(seen.scrollWidth).toBeLessThanOrEqual(seen.innerWidth);
    expect(seen.h1).toBe(UNICODE_COMPANY);
    expect(seen.text).toContain(UNICODE_COMPANY);
    expect(seen.lang).toMatch(/^en/);
    expect(seen.charts).toHaveLength(2);
    for (const chart of seen.charts) {
      expect(chart.role).toBe('img');
      expect(chart.name.length).toBeGreaterThan(20);
      expect(chart.width).toBeLessThanOrEqual(seen.innerWidth);
      expect(chart.caption).toMatch(/^Figure \d\. /);
    }
    // The year table stays in its own box: on a phone it scrolls there, never the page.
    expect(seen.table.box).toBeLessThanOrEqual(seen.innerWidth);
    expect(seen.pdf).toBe(share.pdfUrl);
    for (const words of ['Executive Summary', 'Financial Analysis', 'Recommendations', 'About this report', 'Download the PDF'])
      expect(seen.text).toContain(words);
    expect(await violations()).toEqual([]);
    await screenshot(page, `shared-report-${viewport.width}`);
  });
}

test('the PDF link on the page downloads the report', async () => {
  const response = await host.fetch(share.pdfUrl, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const pdf = await fetch(response.headers.get('location')!);
  expect(
    Buffer.from(await pdf.arrayBuffer())
      .subarray(0, 5)
      .toString(),
  ).toBe('%PDF-');
});

test('after revoking, the page answers 410 and says so, accessibly', async () => {
  expect((await revokeShare(host, owner.accessToken, trackingId, share.shareId)).status).toBe(200);
  await page.setViewport(PHONE);
  const response = await page.goto(share.url);
  expect(response!.status()).toBe(410);
  const seen = await page.evaluate(() => ({
    h1: (globalThis as any).document.querySelector('h1').textContent,
    body: (globalThis as any).document.body.innerText,
  }));
  expect(seen.h1).toBe('This link has been revoked');
  expect(seen.body).not.toContain(UNICODE_COMPANY);
  expect(await violations()).toEqual([]);
});
