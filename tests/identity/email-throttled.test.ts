/**
 * Sign-in when the e-mail service throttles (issue 52): over real HTTP through the dev host, with
 * protocol-faithful local stand-ins of both ways identity sends mail: an SMTP server answering
 * 451 4.7.1 / 421 (RFC 5321's "try again later"), and the Azure Communication Services stand-in
 * answering 429 TooManyRequests with Retry-After, reached with the platform's own client (its
 * throttling policy included). The sign-in answers 503 EMAIL_THROTTLED with Retry-After, never a
 * 500 and never a 200 for a code that was not sent; the code is taken back, so the next request
 * once the service sends again is not held back by a cooldown.
 */
import https from 'node:https';
import type { TokenCredential } from '@azure/core-auth';
import { acsEmailClient, DEFAULT_THROTTLE_RETRY_SECONDS, MAX_THROTTLE_RETRY_SECONDS, retryAfterSeconds, useEmailClient } from '../../shared/mail/mailer';
import { startTestHost, type TestHost } from '../helpers/host';
import { loopbackCertificate, startAcsEmailServer } from './acs-email-server';
import { startSmtpSink } from './smtp-sink';
import { expectError, login, verify } from './support';

const TOKEN = 'entra-token-for-acs';
const SENDER = 'DoNotReply@0f1e2d3c.azurecomm.net';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };

describe('through SMTP', () => {
  let host: TestHost;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    host = await startTestHost({ env: { SERVICES: 'identity', SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
  });
  afterAll(async () => {
    await host.stop();
    await smtp.stop();
  });
  afterEach(() => smtp.refuse());

  const codeFor = (email: string) => /Your sign-in code is (\d{6})/.exec([...smtp.messages].reverse().find((m) => m.to.includes(email))?.data ?? '')?.[1];

  test('451 on RCPT: 503 EMAIL_THROTTLED with Retry-After, nothing sent; once the server accepts, the next request sends a code that signs in', async () => {
    smtp.refuse({ rcpt: '451 4.7.1 Too many messages, try again later' });
    const throttled = await login(host, 'smtp-throttled@example.com', '127.0.3.1');
    expectError(throttled, 503, 'EMAIL_THROTTLED');
    expect(throttled.headers.get('retry-after')).toBe(String(DEFAULT_THROTTLE_RETRY_SECONDS));
    expect(smtp.messages.filter((m) => m.to.includes('smtp-throttled@example.com'))).toEqual([]);

    smtp.refuse();
    // No cooldown: the withdrawn code held nothing back.
    const sent = await login(host, 'smtp-throttled@example.com', '127.0.3.1');
    expect(sent.status).toBe(200);
    const code = codeFor('smtp-throttled@example.com');
    expect(code).toMatch(/^\d{6}$/);
    expect((await verify(host, 'smtp-throttled@example.com', code!, '127.0.3.1')).status).toBe(200);
  });

  test('421 at the greeting (service not available) is throttling too', async () => {
    smtp.refuse({ greeting: '421 4.3.2 Service not available, closing transmission channel' });
    const throttled = await login(host, 'smtp-busy@example.com', '127.0.3.2');
    expectError(throttled, 503, 'EMAIL_THROTTLED');
    expect(throttled.headers.get('retry-after')).toBe(String(DEFAULT_THROTTLE_RETRY_SECONDS));
  });
});

describe('through Azure Communication Services', () => {
  let host: TestHost;
  let acs: Awaited<ReturnType<typeof startAcsEmailServer>>;
  beforeAll(async () => {
    const certificate = loopbackCertificate();
    acs = await startAcsEmailServer({ token: TOKEN, senders: [SENDER], certificate });
    const agent = new https.Agent({ ca: certificate.cert });
    host = await startTestHost({ env: { SERVICES: 'identity', EMAIL_ACS_ENDPOINT: acs.url, EMAIL_FROM: `Report Platform <${SENDER}>` } });
    // The platform's own client (with its throttling policy), trusting the stand-in's certificate.
    const client = acsEmailClient(acs.url, credential, () => new Date(), [
      {
        position: 'perCall',
        policy: {
          name: 'trust-test-certificate',
          sendRequest: (request, next) => {
            request.agent = agent;
            return next(request);
          },
        },
      },
    ]);
    useEmailClient(host.platform, acs.url, client);
  });
  afterAll(async () => {
    await host.stop();
    await acs.stop();
  });

  test('429 with Retry-After: 503 EMAIL_THROTTLED with that Retry-After at once (the client library does not sleep on it); then the code goes out', async () => {
    acs.throttle({ 'retry-after': '45' });
    const before = acs.sendRequests();
    const started = Date.now();
    const throttled = await login(host, 'acs-throttled@example.com', '127.0.4.1');
    expectError(throttled, 503, 'EMAIL_THROTTLED');
    expect(throttled.headers.get('retry-after')).toBe('45');
    // One request, no retries waiting out 45 s inside the sign-in.
    expect(acs.sendRequests() - before).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(acs.sent).toEqual([]);

    acs.throttle(undefined);
    const sent = await login(host, 'acs-throttled@example.com', '127.0.4.1');
    expect(sent.status).toBe(200);
    const code = /\b(\d{6,10})\b/.exec(acs.sent.at(-1)!.content.plainText ?? '')?.[1];
    expect((await verify(host, 'acs-throttled@example.com', code!, '127.0.4.1')).status).toBe(200);
  });

  test('429 with retry-after-ms: Retry-After rounded up to whole seconds', async () => {
    acs.throttle({ 'retry-after-ms': '2500' });
    const throttled = await login(host, 'acs-ms@example.com', '127.0.4.2');
    expectError(throttled, 503, 'EMAIL_THROTTLED');
    expect(throttled.headers.get('retry-after')).toBe('3');
    acs.throttle(undefined);
  });
});

test('Retry-After is read from milliseconds, seconds or an HTTP date, bounded, and defaults when absent', () => {
  const now = new Date('2026-11-29T03:00:00Z');
  const headers = (values: Record<string, string>) => (name: string) => values[name];
  expect(retryAfterSeconds(headers({ 'retry-after': '120' }), now)).toBe(120);
  expect(retryAfterSeconds(headers({ 'x-ms-retry-after-ms': '1200', 'retry-after': '120' }), now)).toBe(2);
  expect(retryAfterSeconds(headers({ 'retry-after': 'Sun, 29 Nov 2026 03:01:30 GMT' }), now)).toBe(90);
  expect(retryAfterSeconds(headers({ 'retry-after': 'Sun, 29 Nov 2026 02:59:00 GMT' }), now)).toBe(1);
  expect(retryAfterSeconds(headers({ 'retry-after': '0' }), now)).toBe(1);
  expect(retryAfterSeconds(headers({ 'retry-after': '86400' }), now)).toBe(MAX_THROTTLE_RETRY_SECONDS);
  expect(retryAfterSeconds(headers({ 'retry-after': 'soon' }), now)).toBe(DEFAULT_THROTTLE_RETRY_SECONDS);
  expect(retryAfterSeconds(headers({}), now)).toBe(DEFAULT_THROTTLE_RETRY_SECONDS);
});
