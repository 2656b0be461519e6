import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { TestHost } from '../helpers/host';
import { latestCode } from '../helpers/identity';
import { mailedSince } from '../../tools/outbox';
import { waitFor } from '../helpers/wait';

/** Where the browser tests write a screenshot of each page (git-ignored; docs/console/ holds the committed copies). */
export const SCREENSHOT_DIR = path.resolve(__dirname, '..', '..', '..', 'test-output', 'console');

/**
 * Flags of @sparticuz/chromium that would hide what the tests check: the console's
 * Content-Security-Policy and same-origin rules must apply as in a user's browser.
 */
const UNSAFE_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);
/** Nothing leaves the machine: no component updates, sync, metrics, safe-browsing lists or first-run pages. */
const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-sync',
  '--metrics-recording-only',
  '--no-first-run',
  '--safebrowsing-disable-auto-update',
  '--disable-client-side-phishing-detection',
  '--disable-breakpad',
];

/** Headless Chromium from the @sparticuz/chromium npm package (the binary ships inside it; nothing is downloaded). */
export async function launchBrowser(): Promise<Browser> {
  const chromium = (await import('@sparticuz/chromium')).default;
  const args = [...chromium.args.filter((flag: string) => !UNSAFE_FLAGS.has(flag)), ...QUIET_FLAGS];
  return puppeteer.launch({ executablePath: await chromium.executablePath(), args, headless: 'shell', defaultViewport: { width: 1280, height: 900 } });
}

/** What a page reported about itself: CSP violations and script errors, which must stay empty. */
export function watchPage(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return { problems };
}

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core run in the page (evaluated over the DevTools protocol, so the page's CSP needs no exception); serious and critical violations. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type AxeResult = { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] };
    const browser = globalThis as unknown as { axe: { run: (context: unknown, options: object) => Promise<AxeResult> }; document: unknown };
    const result = await browser.axe.run(browser.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(', ')}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** The text of the first element matching `selector`, once it exists. */
export async function textOf(page: Page, selector: string, timeout = 15_000): Promise<string> {
  const handle = await page.waitForSelector(selector, { timeout });
  return (await handle!.evaluate((el) => el.textContent ?? '')).trim();
}

/** Waits until the page's main landmark contains `text`. */
export async function waitForText(page: Page, text: string, timeout = 15_000): Promise<void> {
  await page.waitForFunction((t) => (globalThis as any).document.body.innerText.includes(t), { timeout }, text);
}

/** Follows the console's navigation link `label` and waits for that page's title. */
export async function goToPage(page: Page, label: string): Promise<void> {
  await page.click(`nav[aria-label=Console] a ::-p-text(${label})`);
  await page.waitForFunction((l) => (globalThis as any).document.title.startsWith(l), {}, label === 'Payments' ? 'Payments needing attention' : label);
}

/** Signs in through the console's form: email, the code from the outbox, as a person would. */
export async function signInThroughPage(page: Page, host: TestHost, email: string): Promise<void> {
  await page.waitForSelector('#email');
  await page.type('#email', email);
  const sentAt = Date.now();
  await page.click('form button[type=submit]');
  await page.waitForSelector('#code');
  // The code arrives by email (the dev outbox): take one written after the request.
  const code = await waitFor(
    async () => {
      return mailedSince(host.dataDir, sentAt - 1000) ? latestCode(host, email) : undefined;
    },
    10_000,
    `the code for ${email}`,
  );
  await page.type('#code', code);
  await page.click('form button[type=submit]');
}

/**
 * @sinonjs/fake-timers (the clock Jest's own fake timers use) bundled for the page. The Node
 * built-ins it looks for are left out: in a page it finds none, as in any browser.
 */
const FAKE_TIMERS_SOURCE = buildSync({
  stdin: { contents: "globalThis.__fakeTimers = require('@sinonjs/fake-timers');", resolveDir: __dirname },
  bundle: true,
  platform: 'browser',
  format: 'iife',
  external: ['timers', 'timers/promises', 'perf_hooks', 'util'],
  write: false,
}).outputFiles[0].text;

/** Where the pages of one browser keep how far their clocks were moved ahead, so a reload or a new tab keeps the browser's time. */
const CLOCK_OFFSET_KEY = 'test.clockOffsetMs';

/**
 * Gives every document `page` loads a fake clock: it runs with real time (so the page works as
 * usual) and `advanceClock` moves it ahead, firing the timers that fall due on the way. Only the
 * timers and Date are faked, not animation frames or the event loop. `AbortSignal.timeout` is made
 * of the page's (fake) setTimeout, with the same TimeoutError, so a call's deadline moves with the
 * clock too. Tests of what the console does after 10, 20 or 60 seconds then take milliseconds.
 */
export async function installPageClock(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(`${FAKE_TIMERS_SOURCE}
(() => {
  let offset = 0;
  try { offset = Number(localStorage.getItem(${JSON.stringify(CLOCK_OFFSET_KEY)})) || 0; } catch {}
  globalThis.__clock = globalThis.__fakeTimers.withGlobal(globalThis).install({
    now: Date.now() + offset,
    shouldAdvanceTime: true,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  AbortSignal.timeout = (ms) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException('signal timed out', 'TimeoutError')), ms);
    return controller.signal;
  };
})();`);
}

/**
 * Moves the clock of every given page (tabs of one browser) `ms` ahead, in steps of at most
 * `stepMs` with the pages' own work (network answers, rendering) let through between steps.
 */
export async function advanceClock(pages: Page[], ms: number, stepMs = 1_000): Promise<void> {
  await pages[0].evaluate(
    (key, by) => (globalThis as any).localStorage.setItem(key, String((Number((globalThis as any).localStorage.getItem(key)) || 0) + by)),
    CLOCK_OFFSET_KEY,
    ms,
  );
  for (let done = 0; done < ms; done += stepMs) {
    const step = Math.min(stepMs, ms - done);
    for (const page of pages) await page.evaluate((by) => (globalThis as any).__clock.tickAsync(by), step);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
