/**
 * The platform's main job as its users know it, over HTTP only: sign in with an emailed code, pay
 * for pro on (the local) Stripe, see the plan in identity and payment, order a report, follow it
 * to completion, download the PDF, and find it all on the admin dashboard and in the audit log.
 * `npm run demo` prints it step by step; the end-to-end tests assert on what it returns.
 */
import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { latestCode, outboxDir } from '../tools/outbox';

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

/** The parts of the platform's answers the journey reads (the API documents hold the full shapes). */
interface SignedIn {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  user: { id: string; email: string; role: string; plan: string; status: string };
}
interface PlanRow {
  id: string;
  price: number;
  currency: string;
}
interface Report {
  status: string;
  progress_percentage: number;
  duration_ms: number | null;
  visuals?: { status: string; error?: string };
  error?: unknown;
  downloadLinks: (string | { url: string; contentType?: string; type?: string })[];
}
interface Overview {
  dashboard: { health: { score: number; status: string; total_executions: number; success_rate: number; avg_processing_time_ms: number | null } };
}
interface Executions {
  executions: { summary: { total: number; completed: number; failed: number }; recent: { tracking_id: string; company_name: string }[] };
}
interface ExecutionStatus {
  status: string;
  data: { logs: unknown[]; processing_metrics: { completed_steps: number; total_steps: number } };
}
interface Profiles {
  profiles: { company_name: string; execution_count: number; latest_status: string }[];
}
interface Audit {
  entries: { timestamp: string; actor: { type: string; id: string }; result: string; details: unknown }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runJourney(options: JourneyOptions) {
  const { dataDir, email, company } = options;
  /** `/identity/auth/login` -> the identity service's base URL + `/auth/login`. */
  const urlFor = (pathname: string) => {
    const [, service] = pathname.split('/');
    const base = options.serviceUrls?.[service];
    return base ? `${base}${pathname.slice(service.length + 1)}` : `${options.baseUrl}${pathname}`;
  };
  const adminEmail = options.adminEmail ?? 'admin@example.com';
  const steps: Step[] = [];
  const record = (step: Step) => {
    steps.push(step);
    options.onStep?.(step);
  };

  /** One HTTP call; anything but the expected status ends the journey with what came back. */
  async function call<T>(
    name: string,
    method: string,
    pathname: string,
    init: { token?: string; body?: unknown; expect?: number; summary?: (body: T) => string } = {},
  ): Promise<T> {
    const res = await fetch(urlFor(pathname), {
      method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    const body = (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T;
    const expected = init.expect ?? 200;
    if (res.status !== expected) {
      record({ name, call: `${method} ${pathname}`, status: res.status, summary: text.slice(0, 300) });
      throw new JourneyError(`${name}: ${method} ${pathname} answered ${res.status}, expected ${expected}: ${text.slice(0, 500)}`);
    }
    record({ name, call: `${method} ${pathname}`, status: res.status, summary: init.summary ? init.summary(body) : '' });
    return body;
  }

  async function signIn(who: string, label: string) {
    await call(`${label}: ask for a sign-in code`, 'POST', '/identity/auth/login', { body: { email: who }, summary: (b: { message: string }) => b.message });
    const code = latestCode(dataDir, who);
    record({ name: `${label}: read the code from the outbox`, call: outboxDir(dataDir), status: 'ok', summary: `code of ${code.length} digits` });
    return call<SignedIn>(`${label}: sign in with the code`, 'POST', '/identity/auth/verify', {
      body: { email: who, code },
      summary: (b) => `${b.user.email}: role ${b.user.role}, plan ${b.user.plan}, token expires in ${b.expiresIn}s`,
    });
  }

  // 1. A new user signs in.
  const user = await signIn(email, 'user');

  // 2. Plans and payment.
  const plans = await call<{ plans: PlanRow[] }>('read the plans', 'GET', '/payment/plans', {
    summary: (b) => b.plans.map((p) => `${p.id} ${p.price} ${p.currency}`).join(', '),
  });
  const pro = plans.plans.find((p) => p.id === 'pro');
  if (!pro) throw new JourneyError('the plan table has no pro plan');
  const intent = await call<{ paymentIntentId: string; amount: number; currency: string; clientSecret: string }>(
    'create a payment intent for pro',
    'POST',
    '/payment/create-payment-intent',
    {
      token: user.accessToken,
      body: { amount: pro.price, planType: 'pro', userId: user.user.id },
      summary: (b) => `${b.paymentIntentId}: ${b.amount} ${b.currency}`,
    },
  );

  const stripeBase = JSON.parse(fs.readFileSync(path.join(dataDir, 'stripe-emulator.json'), 'utf8')).url as string;
  const stripeUrl = new URL(stripeBase);
  const stripe = new Stripe('sk_test_offline_emulator', { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: 'http', telemetry: false });
  const confirmed = await stripe.paymentIntents.confirm(intent.paymentIntentId, { payment_method: 'pm_card_visa' });
  const delivery = decodeURIComponent(String(confirmed.lastResponse.headers['emulator-webhook-delivery'] ?? 'none'));
  record({
    name: 'pay with a test card on the local Stripe (it delivers the signed webhook)',
    call: `POST ${stripeBase}/v1/payment_intents/${intent.paymentIntentId}/confirm`,
    status: confirmed.status,
    summary: delivery.slice(0, 200),
  });
  if (confirmed.status !== 'succeeded') throw new JourneyError(`payment ${intent.paymentIntentId} is ${confirmed.status}`);

  // 3. The plan is pro in identity (after a refresh, the new token carries it) and in payment.
  const refreshed = await call<SignedIn>('refresh the session', 'POST', '/identity/auth/refresh', {
    body: { refreshToken: user.refreshToken },
    summary: (b) => `plan in the new token: ${b.user?.plan}`,
  });
  const validated = await call<{ user: { plan: string; status: string } }>('validate the new token at identity', 'GET', '/identity/auth/validate', {
    token: refreshed.accessToken,
    summary: (b) => `plan ${b.user.plan}, status ${b.user.status}`,
  });
  const userStatus = await call<{ plan: string; status: string; sync?: { state: string }; payments: { paymentIntentId: string; status: string }[] }>(
    'read the user status at payment',
    'GET',
    '/payment/user-status',
    { token: refreshed.accessToken, summary: (b) => `plan ${b.plan}, status ${b.status}, sync ${b.sync?.state}` },
  );

  // 4. Order a report and follow it.
  const order = await call<{ trackingId: string; status: string }>('order a report', 'POST', '/orchestrator/api/reports', {
    token: refreshed.accessToken,
    expect: 202,
    body: {
      company_name: company,
      industry_id: '54',
      profile: {
        description: 'Engineering consultancy for water utilities',
        employees: 42,
        founded_year: 2012,
        currency: 'USD',
        revenue_history: [
          { year: 2022, revenue: 3_100_000, net_income: 240_000 },
          { year: 2023, revenue: 3_650_000, net_income: 310_000 },
          { year: 2024, revenue: 4_420_000, net_income: 455_000 },
        ],
        goals: ['Open a second office', 'Grow recurring maintenance contracts'],
        challenges: ['Hiring senior engineers'],
        key_metrics: { gross_margin_pct: 38.5, customer_retention_pct: 91 },
      },
    },
    summary: (b) => `tracking id ${b.trackingId}, status ${b.status}`,
  });
  const deadline = Date.now() + (options.reportTimeoutMs ?? 90_000);
  let report: Report;
  for (;;) {
    const res = await fetch(urlFor(`/orchestrator/api/reports/${order.trackingId}`), { headers: { authorization: `Bearer ${refreshed.accessToken}` } });
    report = (await res.json()) as Report;
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

  // 5. The admin finds it all.
  const admin = await signIn(adminEmail, 'admin');
  const overview = await call<Overview>('admin: dashboard overview', 'GET', '/orchestrator/api/admin/dashboard/overview', {
    token: admin.accessToken,
    summary: (b) =>
      `health ${b.dashboard.health.score} ${b.dashboard.health.status}, ${b.dashboard.health.total_executions} executions, success rate ${b.dashboard.health.success_rate}%`,
  });
  const executions = await call<Executions>('admin: executions list', 'GET', '/orchestrator/api/admin/dashboard/executions?limit=100', {
    token: admin.accessToken,
    summary: (b) => `${b.executions.summary.total} total, ${b.executions.summary.completed} completed, ${b.executions.summary.failed} failed`,
  });
  const status = await call<ExecutionStatus>('admin: execution status', 'GET', `/orchestrator/api/admin/status/${order.trackingId}`, {
    token: admin.accessToken,
    summary: (b) => `${b.status}, ${b.data.logs.length} log rows, ${b.data.processing_metrics.completed_steps}/${b.data.processing_metrics.total_steps} steps`,
  });
  const profiles = await call<Profiles>('admin: client profiles', 'GET', `/orchestrator/api/admin/profiles?search=${encodeURIComponent(company)}`, {
    token: admin.accessToken,
    summary: (b) => b.profiles.map((p) => `${p.company_name}: ${p.execution_count} execution(s), latest ${p.latest_status}`).join('; '),
  });
  const audit = await call<Audit>('admin: audit of plan changes for the user', 'GET', `/identity/admin/audit?action=user.plan.update&target=${user.user.id}`, {
    token: admin.accessToken,
    summary: (b) => b.entries.map((e) => `${e.timestamp} ${e.actor.type}:${e.actor.id} ${e.result} ${JSON.stringify(e.details)}`).join('; '),
  });

  return {
    steps,
    user,
    intent,
    confirmed,
    refreshed,
    validated,
    userStatus,
    order,
    report,
    pdf,
    pdfPath,
    admin,
    overview,
    executions,
    status,
    profiles,
    audit,
  };
}
