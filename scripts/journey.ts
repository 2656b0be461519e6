/**
 * The platform's main job as its users know it, over HTTP only: sign in with an emailed code, pay
 * for pro on (the local) Stripe, see the plan in identity and payment, order a report, follow it
 * to completion, download the PDF, and find it all on the admin dashboard and in the audit log.
 * `npm run demo` prints it step by step; the end-to-end tests assert on what it returns.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { platformClient } from '../client';
import { latestCode, outboxDir } from '../tools/outbox';
import { demoReportRequest } from './demo-profile';

export interface Step {
  name: string;
  call: string;
  status: number | string;
  summary: string;
}

export interface JourneyOptions {
  /** The dev host, e.g. http://127.0.0.1:7071. */
  baseUrl: string;
  /** Per-service base URLs when the services run apart ({ identity: 'https://id.example/identity', ... }); default `<baseUrl>/<service>`. */
  serviceUrls?: Partial<Record<string, string>>;
  /** The dev host's DATA_DIR: the outbox and the local Stripe server's address are there. */
  dataDir: string;
  email: string;
  company: string;
  adminEmail?: string;
  onStep?: (step: Step) => void;
  /** How long to follow the report before giving up. */
  reportTimeoutMs?: number;
}

export class JourneyError extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What every call of the typed client answers. */
type Answer<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

export async function runJourney(options: JourneyOptions) {
  const { dataDir, email, company } = options;
  const platform = platformClient({ baseUrl: options.baseUrl, serviceUrls: options.serviceUrls });
  /** The same client with a user's token. */
  const as = (token: string) => platformClient({ baseUrl: options.baseUrl, serviceUrls: options.serviceUrls, token });
  const adminEmail = options.adminEmail ?? 'admin@example.com';
  const steps: Step[] = [];
  const record = (step: Step) => {
    steps.push(step);
    options.onStep?.(step);
  };

  /** One call of the typed client (`call` names it for the printout); an error answer ends the journey with what came back. */
  async function call<T>(name: string, call: string, pending: Answer<T>, summary?: (body: T) => string): Promise<T> {
    const { data, error, response } = await pending;
    if (!response.ok) {
      const text = JSON.stringify(error);
      record({ name, call, status: response.status, summary: text.slice(0, 300) });
      throw new JourneyError(`${name}: ${call} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    record({ name, call, status: response.status, summary: summary ? summary(data as T) : '' });
    return data as T;
  }

  async function signIn(who: string, label: string) {
    await call(
      `${label}: ask for a sign-in code`,
      'POST /identity/auth/login',
      platform.identity.POST('/identity/auth/login', { body: { email: who } }),
      (b) => b.message,
    );
    const code = latestCode(dataDir, who);
    record({ name: `${label}: read the code from the outbox`, call: outboxDir(dataDir), status: 'ok', summary: `code of ${code.length} digits` });
    return call(
      `${label}: sign in with the code`,
      'POST /identity/auth/verify',
      platform.identity.POST('/identity/auth/verify', { body: { email: who, code } }),
      (b) => `${b.user.email}: role ${b.user.role}, plan ${b.user.plan}, token expires in ${b.expiresIn}s`,
    );
  }

  // 1. A new user signs in.
  const user = await signIn(email, 'user');

  // 2. Plans and payment.
  const plans = await call('read the plans', 'GET /payment/plans', platform.payment.GET('/payment/plans'), (b) =>
    b.plans.map((p) => `${p.id} ${p.price} ${p.currency}`).join(', '),
  );
  const pro = plans.plans.find((p) => p.id === 'pro');
  if (!pro) throw new JourneyError('the plan table has no pro plan');
  const subscription = await call(
    'subscribe to pro, monthly',
    'POST /payment/subscriptions',
    as(user.accessToken).payment.POST('/payment/subscriptions', { body: { planType: 'pro', interval: 'month' } }),
    (b) => `${b.subscriptionId} (${b.status}): first invoice ${b.invoiceId}, ${b.amount} ${b.currency} a month`,
  );
  // The client confirms the first invoice's payment exactly as a payment intent's (its client secret names it).
  const secret = subscription.clientSecret ?? '';
  const intent = { paymentIntentId: secret.slice(0, secret.indexOf('_secret_')) };

  const stripeBase = JSON.parse(fs.readFileSync(path.join(dataDir, 'stripe-emulator.json'), 'utf8')).url as string;
  const stripeUrl = new URL(stripeBase);
  const stripe = new Stripe('sk_test_offline_emulator', { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: 'http', telemetry: false });
  const confirmed = await stripe.paymentIntents.confirm(intent.paymentIntentId, { payment_method: 'pm_card_visa' });
  const delivery = decodeURIComponent(String(confirmed.lastResponse.headers['emulator-webhook-delivery'] ?? 'none'));
  record({
    name: 'pay the first invoice with a test card on the local Stripe (it delivers the signed invoice.paid)',
    call: `POST ${stripeBase}/v1/payment_intents/${intent.paymentIntentId}/confirm`,
    status: confirmed.status,
    summary: delivery.slice(0, 200),
  });
  if (confirmed.status !== 'succeeded') throw new JourneyError(`payment ${intent.paymentIntentId} is ${confirmed.status}`);

  // 3. The plan is pro in identity (after a refresh, the new token carries it) and in payment.
  const refreshed = await call(
    'refresh the session',
    'POST /identity/auth/refresh',
    platform.identity.POST('/identity/auth/refresh', { body: { refreshToken: user.refreshToken } }),
    (b) => `plan in the new token: ${b.user?.plan}`,
  );
  const signedIn = as(refreshed.accessToken);
  const validated = await call(
    'validate the new token at identity',
    'GET /identity/auth/validate',
    signedIn.identity.GET('/identity/auth/validate'),
    (b) => `plan ${b.user.plan}, status ${b.user.status}`,
  );
  const userStatus = await call(
    'read the user status at payment',
    'GET /payment/user-status',
    signedIn.payment.GET('/payment/user-status'),
    (b) => `plan ${b.plan}, status ${b.status}, sync ${b.sync?.state}`,
  );
  await call(
    'read the billing page: period, reports left, invoices',
    'GET /payment/billing',
    signedIn.payment.GET('/payment/billing'),
    (b) =>
      `plan ${b.plan} until ${b.planPeriodEnd} (${b.planSource}), renews ${b.subscription?.renews}; ` +
      `${b.reports?.remaining ?? 'unlimited'} reports left; invoice ${b.invoices[0]?.number} ${b.invoices[0]?.status}`,
  );

  // 4. Order a report and follow it.
  const order = await call(
    'order a report',
    'POST /orchestrator/api/reports',
    // One key per click: a retry of this request answers the same report and uses no second one of the quota.
    signedIn.orchestrator.POST('/orchestrator/api/reports', {
      body: demoReportRequest(company),
      headers: { 'Idempotency-Key': `demo-${randomUUID()}` },
    }),
    (b) => `tracking id ${b.trackingId}, status ${b.status}`,
  );
  const deadline = Date.now() + (options.reportTimeoutMs ?? 90_000);
  let report;
  for (;;) {
    const followed = await signedIn.orchestrator.GET('/orchestrator/api/reports/{trackingId}', { params: { path: { trackingId: order.trackingId } } });
    if (!followed.data) throw new JourneyError(`following report ${order.trackingId} answered ${followed.response.status}: ${JSON.stringify(followed.error)}`);
    report = followed.data;
    if (report.status !== 'processing' || Date.now() > deadline) break;
    await sleep(250);
  }
  record({
    name: 'follow the report',
    call: `GET /orchestrator/api/reports/${order.trackingId}`,
    status: report.status,
    summary: `progress ${report.progress_percentage}%, ${report.duration_ms} ms, visuals ${report.visuals?.status}${report.visuals?.error ? ` (${report.visuals.error})` : ''}`,
  });
  if (report.status !== 'completed') throw new JourneyError(`report ${order.trackingId} is ${report.status}: ${JSON.stringify(report.error)}`);

  await call(
    'list my reports',
    'GET /orchestrator/api/reports',
    signedIn.orchestrator.GET('/orchestrator/api/reports', { params: { query: { limit: 10 } } }),
    (b) =>
      `${b.reports.length} report(s): ${b.reports.map((r) => `${r.company} ${r.status}`).join(', ')}; quota ${b.quota.used} used, ${b.quota.remaining ?? 'unlimited'} left until ${b.quota.resetsAt}`,
  );

  const pdfLink = report.downloadLinks.find((l) => (typeof l === 'string' ? l : (l.contentType ?? l.type ?? l.url)).includes('pdf'));
  if (!pdfLink) throw new JourneyError(`report ${order.trackingId} has no PDF link`);
  const pdfUrl = typeof pdfLink === 'string' ? pdfLink : pdfLink.url;
  const pdfResponse = await fetch(pdfUrl);
  const pdf = Buffer.from(await pdfResponse.arrayBuffer());
  const pdfPath = path.join(dataDir, 'demo', `${order.trackingId}.pdf`);
  fs.mkdirSync(path.dirname(pdfPath), { recursive: true });
  fs.writeFileSync(pdfPath, pdf);
  record({
    name: 'download the PDF through its link',
    call: `GET ${pdfUrl.split('?')[0]}?<sas>`,
    status: pdfResponse.status,
    summary: `${pdf.length} bytes, saved to ${pdfPath}`,
  });

  // 4b. Share the report: a link to its web page (7 days), opened without an account.
  const share = await call(
    'share the report as a web page (7 days)',
    `POST /orchestrator/api/reports/${order.trackingId}/shares`,
    signedIn.orchestrator.POST('/orchestrator/api/reports/{trackingId}/shares', {
      params: { path: { trackingId: order.trackingId } },
      body: { expiresInDays: 7 },
    }),
    (b) => `link ${b.shareId}, expires ${b.expiresAt}`,
  );
  const sharedPage = await fetch(share.url);
  const sharedHtml = await sharedPage.text();
  record({
    name: 'open the shared page without an account',
    call: `GET ${share.url.replace(share.token, '<token>')}`,
    status: sharedPage.status,
    summary: `${sharedHtml.length} characters of HTML, ${(sharedHtml.match(/<svg /g) ?? []).length} charts inline`,
  });
  if (sharedPage.status !== 200) throw new JourneyError(`the shared page answered ${sharedPage.status}`);

  // 5. The admin finds it all.
  const admin = await signIn(adminEmail, 'admin');
  const staff = as(admin.accessToken);
  const overview = await call(
    'admin: dashboard overview',
    'GET /orchestrator/api/admin/dashboard/overview',
    staff.orchestrator.GET('/orchestrator/api/admin/dashboard/overview'),
    (b) =>
      `health ${b.dashboard.health.score} ${b.dashboard.health.status}, ${b.dashboard.health.total_executions} executions, success rate ${b.dashboard.health.success_rate}%`,
  );
  const executions = await call(
    'admin: executions list',
    'GET /orchestrator/api/admin/dashboard/executions?limit=100',
    staff.orchestrator.GET('/orchestrator/api/admin/dashboard/executions', { params: { query: { limit: 100 } } }),
    (b) => `${b.executions.summary.total} total, ${b.executions.summary.completed} completed, ${b.executions.summary.failed} failed`,
  );
  const status = await call(
    'admin: execution status',
    `GET /orchestrator/api/admin/status/${order.trackingId}`,
    staff.orchestrator.GET('/orchestrator/api/admin/status/{trackingId}', { params: { path: { trackingId: order.trackingId } } }),
    (b) => `${b.status}, ${b.data.logs.length} log rows, ${b.processing_metrics.completed_steps}/${b.processing_metrics.total_steps} steps`,
  );
  const profiles = await call(
    'admin: client profiles',
    `GET /orchestrator/api/admin/profiles?search=${encodeURIComponent(company)}`,
    staff.orchestrator.GET('/orchestrator/api/admin/profiles', { params: { query: { search: company } } }),
    (b) => b.profiles.map((p) => `${p.company_name}: ${p.execution_count} execution(s), latest ${p.latest_status}`).join('; '),
  );
  const audit = await call(
    'admin: audit of plan changes for the user',
    `GET /identity/admin/audit?action=user.plan.update&target=${user.user.id}`,
    staff.identity.GET('/identity/admin/audit', { params: { query: { action: 'user.plan.update', target: user.user.id } } }),
    (b) => b.entries.map((e) => `${e.timestamp} ${e.actor.type}:${e.actor.id} ${e.result} ${JSON.stringify(e.details)}`).join('; '),
  );

  return {
    steps,
    user,
    subscription,
    intent,
    confirmed,
    refreshed,
    validated,
    userStatus,
    order,
    report,
    pdf,
    pdfPath,
    share,
    admin,
    overview,
    executions,
    status,
    profiles,
    audit,
  };
}
