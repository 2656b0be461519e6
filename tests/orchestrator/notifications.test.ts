import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvocationContext, type Timer } from '@azure/functions';
import { db as sqlDb } from '../../shared/sql/db';
import { TIMERS } from '../../functions/orchestrator/timers';
import { outboxFiles } from '../../tools/outbox';
import { expectErrorAnswer } from '../helpers/errors';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { ACME, db, deadPort, waitFor } from './helpers';

/**
 * Telling the client a report is ready, over HTTP through the dev host: the e-mail (outbox) with
 * its opt-out, and webhooks to a receiver in the test (a loopback server, reachable because the host
 * runs with ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE on; the address checks are tested with it off).
 * The host's clock runs `offset` ahead of real time, so retries fall due without waiting for them;
 * the notice timer is disabled and run by the test.
 */
let host: TestHost;
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records every request and answers the statuses queued (200 when none is). */
async function receiver() {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answers.shift() ?? 200;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : `nope ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/report`, received, answers, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** How a client checks a delivery (docs/orchestrator.md): every v1 in the header, compared in constant time with its own HMAC. */
function verifies(
  header: string | undefined,
  body: string,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(clock.now().getTime() / 1000),
): boolean {
  const parts = (header ?? '').split(',').map((p) => p.split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return parts.filter(([k]) => k === 'v1').some(([, v]) => v.length === expected.length && timingSafeEqual(Buffer.from(v), expected));
}
const v1Count = (header: string | undefined) => (header ?? '').split(',').filter((p) => p.startsWith('v1=')).length;

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
const dispatchTimer = TIMERS.find((t) => t.name === 'orchestrator-notify-dispatch')!;
const runNoticeTimer = () => dispatchTimer.handler(timer, new InvocationContext({ invocationId: 'test', functionName: dispatchTimer.name }));

beforeAll(async () => {
  host = await startTestHost({
    clock,
    env: {
      ORCHESTRATOR_LOG_FLUSH_MS: '20',
      ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'true',
      ORCHESTRATOR_AI_MAX_RETRIES: '0',
      'AzureWebJobs.orchestrator-notify-dispatch.Disabled': 'true',
    },
  });
});
afterAll(() => host.stop());

async function userWithPlan(email: string, plan: 'free' | 'pro' | 'enterprise'): Promise<SignedIn> {
  const first = await signIn(host, email);
  if (plan === 'free') return first;
  await sqlDb().updateTable('users').set({ plan }).where('id', '=', first.user.id).execute();
  return signIn(host, email);
}

const call = (token: string, method: string, path: string, body?: unknown) =>
  host.fetch(`/orchestrator/api/${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

async function register(user: SignedIn, url: string) {
  const response = await call(user.accessToken, 'POST', 'webhooks/endpoints', { url, description: 'our ERP' });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; url: string; secret: string; previousSecretExpiresAt: string | null };
}

async function report(user: SignedIn): Promise<string> {
  const response = await call(user.accessToken, 'POST', 'reports', ACME);
  expect(response.status).toBe(202);
  return ((await response.json()) as { trackingId: string }).trackingId;
}

/** The notice of `trackingId` once handled (its e-mail settled, its deliveries made). */
const noticeDone = (trackingId: string) =>
  waitFor(
    async () => {
      const row = await db().selectFrom('orchestrator_notify_events').selectAll().where('tracking_id', '=', trackingId).executeTakeFirst();
      return row?.state === 'done' ? row : undefined;
    },
    60_000,
    `the notice of ${trackingId}`,
  );

/** The outbox's mails to `email`, decoded (quoted-printable soft breaks and escapes). */
function mailsTo(email: string): string[] {
  return outboxFiles(host.dataDir)
    .map((file) => fs.readFileSync(file, 'utf8'))
    .filter((text) => new RegExp(`^To: .*${email.replace(/[.+]/g, '\\$&')}`, 'mi').test(text))
    .map((text) => text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
}
const reportMails = (email: string) => mailsTo(email).filter((m) => /^Subject: Your report on/m.test(m));

type Delivery = {
  id: string;
  status: string;
  attempts: number;
  eventType: string;
  trackingId: string;
  tries: { statusCode: number | null; outcome: string; error: string | null }[];
};
async function deliveriesOf(user: SignedIn, endpointId: string): Promise<Delivery[]> {
  const response = await call(user.accessToken, 'GET', `webhooks/endpoints/${endpointId}/deliveries`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { deliveries: Delivery[] }).deliveries;
}

describe('malformed bodies and who may register', () => {
  it('answers 400 JSON for bodies that are not what the routes take', async () => {
    const user = await userWithPlan('webhook-malformed@example.com', 'pro');
    await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints', '{"url":'), 400, 'INVALID_JSON');
    await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints', { url: 5 }), 400, 'VALIDATION_FAILED');
    await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints', {}), 400, 'VALIDATION_FAILED');
    await expectErrorAnswer(
      await call(user.accessToken, 'POST', 'webhooks/endpoints', { url: 'https://example.com', secret: 'mine' }),
      400,
      'VALIDATION_FAILED',
    );
    await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints', { url: 'not a url' }), 400, 'WEBHOOK_URL_INVALID');
    await expectErrorAnswer(await call(user.accessToken, 'PUT', 'notifications/preferences', { email: 'no' }), 400, 'VALIDATION_FAILED');
    await expectErrorAnswer(await call(user.accessToken, 'PUT', 'notifications/preferences', 'false'), 400, 'VALIDATION_FAILED');
    await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints/we_nothing/rotate-secret'), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/deliveries/wd_nothing/resend'), 404, 'WEBHOOK_DELIVERY_NOT_FOUND');
    const anonymous = await host.fetch('/orchestrator/api/webhooks/endpoints');
    await expectErrorAnswer(anonymous, 401, 'AUTH_REQUIRED');
  });

  it('a free-plan user cannot register an endpoint (403 WEBHOOKS_PLAN_REQUIRED)', async () => {
    const user = await userWithPlan('webhook-free@example.com', 'free');
    const body = await expectErrorAnswer(
      await call(user.accessToken, 'POST', 'webhooks/endpoints', { url: 'https://example.com/hook' }),
      403,
      'WEBHOOKS_PLAN_REQUIRED',
    );
    expect(body.message).toMatch(/Pro and Enterprise/);
  });

  it('with the local setting off, endpoints at loopback, private, link-local and metadata addresses are refused, and http too', async () => {
    const user = await userWithPlan('webhook-ssrf@example.com', 'enterprise');
    host.platform.reconfigure({ ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'false' });
    try {
      const refused: [string, string][] = [
        ['https://127.0.0.1/hook', 'loopback'],
        ['https://10.0.0.1/hook', 'private'],
        ['https://169.254.169.254/latest/meta-data/', 'metadata'],
        ['https://[::1]/hook', 'loopback'],
        ['https://localhost/hook', 'loopback'],
        ['https://[::ffff:10.0.0.1]/hook', 'private'],
        ['https://2130706433/hook', 'loopback'],
        ['https://192.168.1.20:8443/hook', 'private'],
        ['https://100.64.0.1/hook', 'cgnat'],
        ['https://[fd00:ec2::254]/hook', 'metadata'],
      ];
      for (const [url, kind] of refused) {
        const body = await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints', { url }), 400, 'WEBHOOK_URL_NOT_ALLOWED');
        expect([url, body.kind]).toEqual([url, kind]);
      }
      await expectErrorAnswer(await call(user.accessToken, 'POST', 'webhooks/endpoints', { url: 'http://93.184.216.34/hook' }), 400, 'WEBHOOK_URL_INVALID');
      const list = await call(user.accessToken, 'GET', 'webhooks/endpoints');
      expect(await list.json()).toEqual({ endpoints: [] });
    } finally {
      host.platform.reconfigure({ ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'true' });
    }
  });
});

describe('a completed and a failed report', () => {
  it('are delivered signed to the endpoint and e-mailed to the requester; the endpoint is listed without its secret', async () => {
    const hook = await receiver();
    try {
      const user = await userWithPlan('webhook-pro@example.com', 'pro');
      const endpoint = await register(user, hook.url);
      expect(endpoint).toMatchObject({
        id: expect.stringMatching(/^we_/),
        url: hook.url,
        secret: expect.stringMatching(/^whsec_/),
        previousSecretExpiresAt: null,
      });
      const listed = (await (await call(user.accessToken, 'GET', 'webhooks/endpoints')).json()) as { endpoints: Record<string, unknown>[] };
      expect(listed.endpoints).toEqual([expect.objectContaining({ id: endpoint.id, description: 'our ERP' })]);
      expect(JSON.stringify(listed)).not.toContain(endpoint.secret);

      const completed = await report(user);
      await waitFor(async () => hook.received.length >= 1, 60_000, 'the report.completed delivery');
      const [first] = hook.received;
      expect(verifies(first.headers['report-signature'] as string, first.body, endpoint.secret)).toBe(true);
      expect(verifies(first.headers['report-signature'] as string, first.body, 'whsec_wrong')).toBe(false);
      expect(verifies(first.headers['report-signature'] as string, `${first.body} `, endpoint.secret)).toBe(false);
      expect(first.headers['content-type']).toBe('application/json');
      const event = JSON.parse(first.body);
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'report.completed',
        created: expect.any(Number),
        data: { trackingId: completed, status: 'completed', company: ACME.company_name, statusUrl: `${host.url}/orchestrator/api/reports/${completed}` },
      });
      expect(first.headers['report-event-id']).toBe(event.id);
      // The status link answers its owner.
      expect((await host.fetch(event.data.statusUrl, { headers: bearer(user.accessToken) })).status).toBe(200);

      await noticeDone(completed);
      const [ready] = reportMails(user.user.email);
      expect(ready).toMatch(/^Subject: Your report on Acme Widgets GmbH is ready/m);
      // Its link is the report's web page: a 7-day share link, opened without signing in, listed to the owner.
      const page = ready.match(/Open it here: (\S+)/)?.[1] ?? '';
      expect(page).toMatch(new RegExp(`^${host.url}/orchestrator/r/[A-Za-z0-9_-]{43}$`));
      expect(ready).toMatch(/without signing in, for 7 days/);
      const opened = await fetch(page);
      expect(opened.status).toBe(200);
      expect(await opened.text()).toContain(ACME.company_name);
      const shares = (await (await call(user.accessToken, 'GET', `reports/${completed}/shares`)).json()) as { shares: { status: string; views: number }[] };
      expect(shares.shares).toEqual([expect.objectContaining({ status: 'active', views: 1 })]);

      // A failing AI endpoint fails the next report: report.failed, with the error in the client's words.
      host.platform.reconfigure({ ORCHESTRATOR_AI_ENDPOINT: `http://127.0.0.1:${await deadPort()}/v1`, ORCHESTRATOR_AI_API_KEY: 'sk-test' });
      let failed: string;
      try {
        failed = await report(user);
        await waitFor(async () => hook.received.length >= 2, 60_000, 'the report.failed delivery');
      } finally {
        host.platform.reconfigure({ ORCHESTRATOR_AI_ENDPOINT: undefined, ORCHESTRATOR_AI_API_KEY: undefined });
      }
      const second = hook.received[1];
      expect(verifies(second.headers['report-signature'] as string, second.body, endpoint.secret)).toBe(true);
      expect(JSON.parse(second.body)).toMatchObject({
        type: 'report.failed',
        data: { trackingId: failed, status: 'failed', company: ACME.company_name, error: expect.stringContaining('AI service') },
      });
      await noticeDone(failed);
      const failure = reportMails(user.user.email).find((m) => m.includes(failed));
      expect(failure).toMatch(/^Subject: Your report on Acme Widgets GmbH could not be produced/m);
      expect(failure).toContain('The AI service that writes the report failed.');

      const deliveries = await deliveriesOf(user, endpoint.id);
      expect(deliveries.map((d) => [d.eventType, d.status, d.attempts, d.tries.map((t) => t.statusCode)])).toEqual([
        ['report.failed', 'succeeded', 1, [200]],
        ['report.completed', 'succeeded', 1, [200]],
      ]);
    } finally {
      await hook.close();
    }
  });

  it('no e-mail after the user opts out; the preference is theirs to read and change', async () => {
    const user = await userWithPlan('webhook-optout@example.com', 'pro');
    const before = (await (await call(user.accessToken, 'GET', 'notifications/preferences')).json()) as Record<string, unknown>;
    expect(before).toEqual({ email: true, address: null, updatedAt: null });
    const first = await report(user);
    await noticeDone(first);
    expect(reportMails(user.user.email)).toHaveLength(1);

    const put = await call(user.accessToken, 'PUT', 'notifications/preferences', { email: false });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ email: false, address: user.user.email, updatedAt: expect.any(String) });
    const second = await report(user);
    const notice = await noticeDone(second);
    expect(notice.email_state).toBe('skipped');
    expect(reportMails(user.user.email)).toHaveLength(1);

    await call(user.accessToken, 'PUT', 'notifications/preferences', { email: true });
    const third = await report(user);
    await noticeDone(third);
    expect(reportMails(user.user.email)).toHaveLength(2);
  });
});

describe('the "report ready" e-mail\'s link', () => {
  it('is ended when the e-mail cannot go; the next try sends a new one', async () => {
    const user = await userWithPlan('notice-smtp-down@example.com', 'free');
    const shares = async (trackingId: string) =>
      ((await (await call(user.accessToken, 'GET', `reports/${trackingId}/shares`)).json()) as { shares: { status: string }[] }).shares.map((x) => x.status);
    host.platform.reconfigure({ SMTP_URL: `smtp://127.0.0.1:${await deadPort()}` });
    let trackingId: string;
    try {
      trackingId = await report(user);
      const tried = await waitFor(
        async () => {
          const row = await db().selectFrom('orchestrator_notify_events').selectAll().where('tracking_id', '=', trackingId).executeTakeFirst();
          return row && row.email_attempts >= 1 ? row : undefined;
        },
        60_000,
        'the first e-mail try',
      );
      expect(tried).toMatchObject({ state: 'pending', email_state: 'pending' });
      expect(reportMails(user.user.email)).toHaveLength(0);
      // The link made for the e-mail that did not go no longer opens the report.
      expect(await shares(trackingId)).toEqual(['revoked']);
    } finally {
      host.platform.reconfigure({ SMTP_URL: undefined });
    }
    offset += 61_000;
    await runNoticeTimer();
    await noticeDone(trackingId);
    const [mail] = reportMails(user.user.email);
    const page = mail.match(/Open it here: (\S+)/)?.[1] ?? '';
    expect((await fetch(page)).status).toBe(200);
    expect((await shares(trackingId)).sort()).toEqual(['active', 'revoked']);
  });
});

describe('retries, the admin view, re-sending and rotation', () => {
  it('a receiver answering 500 twice gets the event on the third try, on the backoff schedule', async () => {
    const hook = await receiver();
    try {
      const user = await userWithPlan('webhook-retry@example.com', 'enterprise');
      const endpoint = await register(user, hook.url);
      hook.answers.push(500, 500);
      const trackingId = await report(user);
      await waitFor(async () => hook.received.length >= 1, 60_000, 'the first try');
      await noticeDone(trackingId);
      let [delivery] = await deliveriesOf(user, endpoint.id);
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, tries: [{ statusCode: 500, outcome: 'failed', error: 'answered 500' }] });

      // Not due yet: the timer leaves it.
      await runNoticeTimer();
      expect(hook.received).toHaveLength(1);
      // One minute later, the second try (500 again); then two minutes later, the third (200).
      offset += 61_000;
      await runNoticeTimer();
      expect(hook.received).toHaveLength(2);
      await runNoticeTimer();
      expect(hook.received).toHaveLength(2);
      offset += 121_000;
      await runNoticeTimer();
      expect(hook.received).toHaveLength(3);
      [delivery] = await deliveriesOf(user, endpoint.id);
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3 });
      expect(delivery.tries.map((t) => t.statusCode)).toEqual([500, 500, 200]);
      // Every try carries the same body, signed anew.
      expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
      expect(hook.received.map((r) => r.headers['report-delivery-attempt'])).toEqual(['1', '2', '3']);
      for (const r of hook.received) expect(verifies(r.headers['report-signature'] as string, r.body, endpoint.secret, 600)).toBe(true);

      // The admins see it; a user does not reach the admin route.
      const admin = await signInAdmin(host);
      const listed = await call(admin.accessToken, 'GET', `admin/webhooks/deliveries?userId=${user.user.id}&status=succeeded`);
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { deliveries: Delivery[] }).deliveries.map((d) => d.id)).toEqual([delivery.id]);
      await expectErrorAnswer(await call(user.accessToken, 'GET', 'admin/webhooks/deliveries'), 403, 'ADMIN_REQUIRED');

      // Another user cannot see or re-send it; an admin can re-send it.
      const other = await userWithPlan('webhook-other@example.com', 'pro');
      await expectErrorAnswer(await call(other.accessToken, 'GET', `webhooks/endpoints/${endpoint.id}/deliveries`), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      await expectErrorAnswer(await call(other.accessToken, 'POST', `webhooks/deliveries/${delivery.id}/resend`), 404, 'WEBHOOK_DELIVERY_NOT_FOUND');
      const resent = await call(admin.accessToken, 'POST', `webhooks/deliveries/${delivery.id}/resend`);
      expect(resent.status).toBe(200);
      expect(await resent.json()).toMatchObject({ id: delivery.id, status: 'succeeded', attempts: 4 });
      expect(hook.received).toHaveLength(4);

      // Deleted: nothing more of it is listed.
      const deleted = await call(user.accessToken, 'DELETE', `webhooks/endpoints/${endpoint.id}`);
      expect(await deleted.json()).toEqual({ success: true, id: endpoint.id, deleted: true });
      await expectErrorAnswer(await call(user.accessToken, 'GET', `webhooks/endpoints/${endpoint.id}/deliveries`), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
    } finally {
      await hook.close();
    }
  });

  it('sending checks the address again: an endpoint registered under the local setting is not called with it off', async () => {
    const hook = await receiver();
    try {
      const user = await userWithPlan('webhook-recheck@example.com', 'pro');
      const endpoint = await register(user, hook.url);
      host.platform.reconfigure({ ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'false' });
      try {
        const trackingId = await report(user);
        await noticeDone(trackingId);
        const [delivery] = await waitFor(async () => {
          const list = await deliveriesOf(user, endpoint.id);
          return list[0]?.attempts ? list : undefined;
        });
        expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
        expect(delivery.tries[0]).toMatchObject({ statusCode: null, outcome: 'failed', error: expect.stringMatching(/^refused: .*http|^refused: .*loopback/) });
        expect(hook.received).toHaveLength(0);
      } finally {
        host.platform.reconfigure({ ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: 'true' });
      }
    } finally {
      await hook.close();
    }
  });

  it('after a rotation each delivery carries both signatures for 24 hours, then only the new one', async () => {
    const hook = await receiver();
    try {
      let user = await userWithPlan('webhook-rotate@example.com', 'pro');
      const endpoint = await register(user, hook.url);
      const trackingId = await report(user);
      await waitFor(async () => hook.received.length >= 1, 60_000, 'the first delivery');
      await noticeDone(trackingId);
      const [delivery] = await deliveriesOf(user, endpoint.id);

      const rotated = await call(user.accessToken, 'POST', `webhooks/endpoints/${endpoint.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const fresh = (await rotated.json()) as { secret: string; previousSecretExpiresAt: string };
      expect(fresh.secret).toMatch(/^whsec_/);
      expect(fresh.secret).not.toBe(endpoint.secret);
      expect(Date.parse(fresh.previousSecretExpiresAt) - clock.now().getTime()).toBeGreaterThan(23.9 * 3600_000);

      expect((await call(user.accessToken, 'POST', `webhooks/deliveries/${delivery.id}/resend`)).status).toBe(200);
      const during = hook.received.at(-1)!;
      const header = during.headers['report-signature'] as string;
      expect(v1Count(header)).toBe(2);
      expect(verifies(header, during.body, fresh.secret)).toBe(true);
      expect(verifies(header, during.body, endpoint.secret)).toBe(true);

      // A day and a minute later (a new sign-in: the old access token has expired on the host's clock).
      offset += 24 * 3600_000 + 60_000;
      user = await signIn(host, 'webhook-rotate@example.com');
      expect((await call(user.accessToken, 'POST', `webhooks/deliveries/${delivery.id}/resend`)).status).toBe(200);
      const after = hook.received.at(-1)!;
      const late = after.headers['report-signature'] as string;
      expect(v1Count(late)).toBe(1);
      expect(verifies(late, after.body, fresh.secret)).toBe(true);
      expect(verifies(late, after.body, endpoint.secret)).toBe(false);
      const listed = (await (await call(user.accessToken, 'GET', 'webhooks/endpoints')).json()) as { endpoints: { previousSecretExpiresAt: string | null }[] };
      expect(listed.endpoints[0].previousSecretExpiresAt).toBeNull();
    } finally {
      await hook.close();
    }
  });
});
