import type Stripe from 'stripe';
import type { Account, InvoiceRecord, SubscriptionRecord } from './account';
import { invalid, type Fields } from './errors';
import { expansions } from './params';

/**
 * How objects are answered: a copy, with the `expand[]` paths of the request expanded as Stripe
 * expands them. An id (`latest_invoice: "in_..."`) becomes the object it names; an includable
 * field, which Stripe answers only when asked for (an invoice's `confirmation_secret` and
 * `payments`, a customer's `subscriptions`, a charge's `refunds`), is computed; lists expand
 * through `data` (`data.latest_invoice`). Anything else is Stripe's 400.
 */

/** A subscription as answered: its items carry the current Price (and its legacy Plan view). */
export function subscriptionView(account: Account, record: SubscriptionRecord): Stripe.Subscription {
  const sub = structuredClone(record.sub);
  for (const item of sub.items.data) {
    const price = account.prices.get(item.price.id);
    if (price) item.price = structuredClone(price);
  }
  return sub;
}

export const invoiceView = (record: InvoiceRecord): Stripe.Invoice => structuredClone(record.invoice);

function invoicePaymentsOf(account: Account, invoice: string): Stripe.ApiList<Stripe.InvoicePayment> {
  const data = [...account.invoicePayments.values()].filter((p) => p.invoice === invoice).reverse();
  return { object: 'list', data: structuredClone(data), has_more: false, url: `/v1/invoice_payments?invoice=${invoice}` };
}

/** The client secret a client confirms the invoice's payment with, while it can still be paid. */
function confirmationSecretOf(account: Account, record: InvoiceRecord): Stripe.Invoice.ConfirmationSecret | null {
  const pi = record.intent ? account.intents.get(record.intent) : undefined;
  if (!pi?.client_secret || record.invoice.status !== 'open') return null;
  return { client_secret: pi.client_secret, type: 'payment_intent' };
}

const INCLUDABLE: Record<string, Record<string, (account: Account, owner: Fields) => unknown>> = {
  invoice: {
    confirmation_secret: (account, invoice) => confirmationSecretOf(account, account.invoice(String(invoice.id))),
    payments: (account, invoice) => invoicePaymentsOf(account, String(invoice.id)),
  },
  customer: {
    subscriptions: (account, customer) => {
      const data = [...account.subscriptions.values()]
        .filter((r) => r.sub.customer === customer.id && r.sub.status !== 'canceled')
        .reverse()
        .map((r) => subscriptionView(account, r));
      return { object: 'list', data, has_more: false, url: `/v1/customers/${String(customer.id)}/subscriptions` };
    },
  },
  charge: {
    refunds: (account, charge) => {
      const data = [...account.refunds.values()].filter((r) => r.charge === charge.id).reverse();
      return { object: 'list', data: structuredClone(data), has_more: false, url: `/v1/charges/${String(charge.id)}/refunds` };
    },
  },
};

/** The object an id names, by its prefix; undefined for an id the account does not hold. */
function resolve(account: Account, id: string): unknown {
  const prefix = id.slice(0, id.indexOf('_'));
  switch (prefix) {
    case 'cus':
      return account.customers.get(id);
    case 'prod':
      return account.products.get(id);
    case 'price':
      return account.prices.get(id);
    case 'sub': {
      const record = account.subscriptions.get(id);
      return record && subscriptionView(account, record);
    }
    case 'in': {
      const record = account.invoices.get(id);
      return record && invoiceView(record);
    }
    case 'pi':
      return account.intents.get(id);
    case 'ch':
      return account.charges.get(id);
    case 're':
      return account.refunds.get(id);
    case 'dp':
      return account.disputes.get(id);
    case 'clock':
      return account.clocks.get(id);
    case 'inpay':
      return account.invoicePayments.get(id);
    default:
      return undefined;
  }
}

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

function expandAt(account: Account, value: unknown, path: string[], whole: string): unknown {
  if (!path.length || value === null) return value;
  const cannot = () => invalid(`This property cannot be expanded (${whole}).`, 'expand');
  if (!isObject(value)) throw cannot();
  const [head, ...rest] = path;
  if (value.object === 'list' || value.object === 'search_result') {
    if (head !== 'data' || !Array.isArray(value.data)) throw cannot();
    return { ...value, data: value.data.map((item: unknown) => expandAt(account, item, rest, whole)) };
  }
  const include = INCLUDABLE[String(value.object)]?.[head];
  let field: unknown = value[head];
  if (include) field = include(account, value);
  else if (typeof field === 'string') {
    const found = resolve(account, field);
    if (found === undefined) throw cannot();
    field = structuredClone(found);
  } else if (field === undefined) throw cannot();
  return { ...value, [head]: expandAt(account, field, rest, whole) };
}

/** `object` as answered to a request with these parameters: a copy, expanded as its `expand[]` asks (at most 4 levels, as Stripe). */
export function render<T>(account: Account, object: T, params: Fields): T {
  let answer: unknown = structuredClone(object);
  for (const path of expansions(params)) {
    const segments = path.split('.');
    if (segments.length > 4) throw invalid(`You cannot expand more than 4 levels of a property (${path}).`, 'expand');
    answer = expandAt(account, answer, segments, path);
  }
  return answer as T;
}
