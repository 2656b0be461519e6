import type Stripe from 'stripe';
import { money, type Ctx } from './account';
import { invalid, newId, refuseUnknown, unsupported } from './errors';
import { invoiceView, render, subscriptionView } from './expand';
import { date, escapeHtml, html, invoicePage, invoicePdf, invoiceRows, notFound, type Page } from './pages';
import { oneOf, required, text } from './params';
import type { Route } from './router';
import { changeSubscription, clockOf, hasEnded, scheduleCancel } from './subscription-state';

/**
 * The Customer Portal: `billingPortal.sessions.create({ customer, return_url })` answers a session
 * whose `url` is a small page of the local server showing the customer's subscriptions (with a
 * button that cancels at the period end, as the portal's default cancellation does) and invoices
 * (with their hosted pages and PDFs), and a link back to `return_url`. Also the hosted invoice
 * pages (`hosted_invoice_url`, `invoice_pdf`).
 */

/** The portal configuration every session uses (the account's default one). */
const CONFIGURATION = 'bpc_local_default';

export const portalRoutes: Route[] = [
  [
    'POST',
    '/v1/billing_portal/sessions',
    (ctx, params) => {
      refuseUnknown(params, ['customer', 'return_url', 'configuration', 'locale', 'flow_data', 'expand']);
      if (params.flow_data !== undefined) throw unsupported('flow_data', 'portal flows');
      const customer = ctx.account.customer(required(params, 'customer'));
      const returnUrl = text(params, 'return_url') ?? null;
      if (returnUrl !== null && !/^https?:\/\/[^\s]+$/.test(returnUrl)) throw invalid(`Invalid URL: ${returnUrl}`, 'return_url', 'url_invalid');
      const id = newId('bps');
      const session: Stripe.BillingPortal.Session = {
        id,
        object: 'billing_portal.session',
        configuration: text(params, 'configuration') ?? CONFIGURATION,
        created: ctx.account.time(null),
        customer: customer.id,
        customer_account: null,
        flow: null,
        livemode: false,
        locale: oneOf(params, 'locale', ['auto', 'en', 'en-GB', 'fr', 'de', 'es']) ?? null,
        on_behalf_of: null,
        return_url: returnUrl,
        url: `${ctx.account.baseUrl}/billing_portal/sessions/${id}`,
      };
      ctx.account.portalSessions.set(id, session);
      ctx.emit('billing_portal.session.created', session, null);
      return { body: render(ctx.account, session, params) };
    },
  ],
];

function portalPage(ctx: Ctx, session: Stripe.BillingPortal.Session, notice = ''): Page {
  const account = ctx.account;
  const customer = account.customer(session.customer);
  const subscriptions = [...account.subscriptions.values()].filter((r) => r.sub.customer === customer.id && !hasEnded(r.sub)).reverse();
  const invoices = [...account.invoices.values()]
    .filter((r) => r.invoice.customer === customer.id && r.invoice.status !== 'draft')
    .reverse()
    .map(invoiceView);
  const subs = subscriptions.map((record) => {
    const sub = subscriptionView(account, record);
    const [item] = sub.items.data;
    const product = account.products.get(String(item.price.product))?.name ?? item.price.id;
    const renewal = sub.cancel_at_period_end
      ? `Cancels on ${escapeHtml(date(sub.cancel_at))}`
      : `Renews on ${escapeHtml(date(item.current_period_end))}
<form method="post" action="/billing_portal/sessions/${escapeHtml(session.id)}/cancel"><input type="hidden" name="subscription" value="${escapeHtml(sub.id)}"><button type="submit">Cancel plan</button></form>`;
    return `<section><h2>${escapeHtml(product)}</h2><p>${escapeHtml(money((item.price.unit_amount ?? 0) * (item.quantity ?? 1), item.price.currency))} per ${escapeHtml(item.price.recurring?.interval)} · ${escapeHtml(sub.status)}</p><p>${renewal}</p></section>`;
  });
  return html(
    'Billing',
    `<h1>Billing</h1><p>${escapeHtml(customer.email ?? customer.id)}</p>${notice}
<h2>Current plan</h2>${subs.join('') || '<p class="note">No active subscription.</p>'}
<h2>Invoice history</h2>${invoiceRows(invoices)}
${session.return_url ? `<p><a href="${escapeHtml(session.return_url)}">← Return</a></p>` : ''}`,
  );
}

/** The pages: GET a portal session's page, POST its cancel form, GET a hosted invoice or its PDF. Undefined for any other path. */
export function servePage(ctx: Ctx, method: string, path: string, form: Record<string, unknown>): Page | undefined {
  const parts = path.split('/');
  if (parts[1] === 'invoices' && method === 'GET' && (parts.length === 3 || (parts.length === 4 && parts[3] === 'pdf'))) {
    const record = ctx.account.invoices.get(parts[2]);
    if (!record || record.invoice.status === 'draft') return notFound();
    return parts.length === 3 ? invoicePage(invoiceView(record)) : invoicePdf(invoiceView(record));
  }
  if (parts[1] !== 'billing_portal' || parts[2] !== 'sessions' || parts.length < 4) return undefined;
  const session = ctx.account.portalSessions.get(parts[3]);
  if (!session) return notFound();
  if (parts.length === 4 && method === 'GET') return portalPage(ctx, session);
  if (parts.length === 5 && parts[4] === 'cancel' && method === 'POST') {
    const record = typeof form.subscription === 'string' ? ctx.account.subscriptions.get(form.subscription) : undefined;
    if (!record || record.sub.customer !== session.customer || hasEnded(record.sub)) return notFound();
    changeSubscription(ctx, record, () => scheduleCancel(record, true, ctx.account.time(clockOf(record))));
    return { status: 303, headers: { Location: `/billing_portal/sessions/${session.id}` }, body: '' };
  }
  return notFound();
}
