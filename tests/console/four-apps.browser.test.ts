import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { freePorts, startAzurite, type AzuriteHandle } from '../../devhost/azurite';
import { generateDevSecrets } from '../../devhost/settings';
import { PROJECT_ROOT } from '../../devhost/host';
import type { ServiceName } from '../../shared/config';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn } from '../helpers/identity';
import { goToPage, launchBrowser, signInThroughPage, waitForText, watchPage } from './browser';

/**
 * The console with the platform deployed as four Function Apps: each service in a dev host of its
 * own on its own port (so on its own origin), each pointed at the others, sharing one database
 * (the SQLite file under one DATA_DIR), one storage account (Azurite) and one set of secrets, as
 * the apps in Azure share theirs. The orchestrator serves the console on its own origin; the page
 * calls identity and payment across origins, which their CORS_ALLOWED_ORIGINS allow for the
 * console's origin and for no other.
 */
jest.setTimeout(120_000);

const SERVICES: ServiceName[] = ['identity', 'payment', 'orchestrator', 'visual'];
let dir: string;
let azurite: AzuriteHandle;
const hosts = {} as Record<ServiceName, TestHost>;
let consoleOrigin: string;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
/** Each cross-origin answer the page received: its URL and the Access-Control-Allow-Origin it carried. */
const crossOrigin: { url: string; method: string; allowed: string | undefined }[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'four-apps-'));
  azurite = await startAzurite();
  const ports = Object.fromEntries(SERVICES.map((s, i) => [s, i])) as Record<ServiceName, number>;
  const free = await freePorts(SERVICES.length);
  const url = (service: ServiceName) => `http://127.0.0.1:${free[ports[service]]}/${service}`;
  consoleOrigin = new URL(url('orchestrator')).origin;
  const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8')).Values as Record<string, string>;
  const shared = {
    ...(await generateDevSecrets(sample)),
    DATA_DIR: path.join(dir, 'data'),
    AzureWebJobsStorage: azurite.connectionString,
    IDENTITY_URL: url('identity'),
    PAYMENT_URL: url('payment'),
    VISUAL_URL: url('visual'),
    CORS_ALLOWED_ORIGINS: consoleOrigin,
    LOG_LEVEL: 'error',
  };
  // Identity first: the others find its JWKS and its bootstrap admin there.
  for (const service of SERVICES) hosts[service] = await startTestHost({ env: { ...shared, SERVICES: service, PORT: String(free[ports[service]]) } });
  browser = await launchBrowser();
  page = await browser.newPage();
  watched = watchPage(page);
  page.on('response', (response) => {
    if (new URL(response.url()).origin === consoleOrigin) return;
    crossOrigin.push({ url: response.url(), method: response.request().method(), allowed: response.headers()['access-control-allow-origin'] });
  });
});

afterAll(async () => {
  await browser?.close();
  for (const service of [...SERVICES].reverse()) await hosts[service]?.stop();
  await azurite?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

afterEach(() => expect(watched.problems).toEqual([]));

test('each app serves only its own service', async () => {
  for (const service of SERVICES) {
    for (const other of SERVICES) {
      const res = await fetch(`${hosts[service].url}/${other}/health`);
      expect([service, other, res.status === 404 ? 'absent' : 'served']).toEqual([service, other, service === other ? 'served' : 'absent']);
    }
  }
});

test('the console, served by the orchestrator, is told where the other apps are', async () => {
  const res = await hosts.orchestrator.fetch('/orchestrator/console/config.json');
  expect(await res.json()).toEqual({
    services: {
      identity: hosts.identity.serviceUrls.identity,
      payment: hosts.payment.serviceUrls.payment,
      orchestrator: '/orchestrator',
      visual: hosts.visual.serviceUrls.visual,
    },
  });
});

test('an admin signs in across origins, and the overview, users and payments pages load their data from the other apps', async () => {
  await signIn(hosts.identity, 'colleague@example.com');
  await page.goto(`${consoleOrigin}/orchestrator/console/`);
  await signInThroughPage(page, hosts.identity, 'admin@example.com');
  await page.waitForSelector('nav[aria-label=Console]');
  await waitForText(page, 'No report executions in the last 7 days yet.');
  await goToPage(page, 'Users');
  await page.waitForSelector('tr[data-user-id] a ::-p-text(colleague@example.com)');
  await goToPage(page, 'Payments');
  await waitForText(page, 'Every payment is synced with identity.');

  const seen = (service: ServiceName, pathname: string) => crossOrigin.filter((r) => r.url.startsWith(`${hosts[service].serviceUrls[service]}${pathname}`));
  // Sign-in, the users list and the payments page were answered by the other apps, each answer allowed for the console's origin.
  for (const [service, pathname] of [
    ['identity', '/auth/verify'],
    ['identity', '/admin/users'],
    ['payment', '/admin/unsynced'],
  ] as const) {
    expect(seen(service, pathname).length).toBeGreaterThan(0);
    expect(seen(service, pathname).every((r) => r.allowed === consoleOrigin)).toBe(true);
  }
});

test('a preflight from an origin not in CORS_ALLOWED_ORIGINS is refused; the console’s origin is allowed', async () => {
  const preflight = (service: ServiceName, origin: string) =>
    fetch(`${hosts[service].serviceUrls[service]}/admin/${service === 'identity' ? 'users' : 'unsynced'}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
  for (const service of ['identity', 'payment'] as const) {
    const refused = await preflight(service, 'http://127.0.0.1:1');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.headers.get('access-control-allow-headers')).toBeNull();
    const allowed = await preflight(service, consoleOrigin);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(consoleOrigin);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  }
});

test('the same console opened from another origin cannot call identity: the browser stops at the refused preflight', async () => {
  // localhost and 127.0.0.1 are different origins to a browser; only the latter is allowed.
  const other = consoleOrigin.replace('127.0.0.1', 'localhost');
  const stranger = await browser.newPage();
  const refused: string[] = [];
  stranger.on('requestfailed', (request) => refused.push(request.url()));
  try {
    await stranger.goto(`${other}/orchestrator/console/`);
    await stranger.waitForSelector('#email');
    await stranger.type('#email', 'admin@example.com');
    await stranger.click('form button[type=submit]');
    await waitForText(stranger, 'The identity service could not be reached');
    expect(refused.some((url) => url.startsWith(`${hosts.identity.serviceUrls.identity}/auth/login`))).toBe(true);
  } finally {
    await stranger.close();
  }
});
