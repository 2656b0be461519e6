import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import type { Ctx } from './account';
import { invalid, newId, refuseUnknown, type Fields } from './errors';
import { render } from './expand';
import { listOf, listParams, mergeMetadata, metadata, object, text } from './params';
import type { Route } from './router';
import { searchOf } from './search';

/**
 * Customers: create (email, name, phone, description, metadata such as `userId`, a `test_clock`
 * whose time the customer's subscriptions then follow, `invoice_settings[default_payment_method]`),
 * retrieve, update (metadata merged, an empty value removes a key), list (`email`, exact and
 * case-sensitive as Stripe's; customers on a test clock only with `test_clock`), and search (`email:'...'`, `metadata['userId']:'...'`).
 * Each customer numbers its invoices `<invoice_prefix>-0001`, `-0002`...
 */

/** Stripe's limit of customers attached to one test clock. */
export const CUSTOMERS_PER_CLOCK = 3;

const CREATE = ['email', 'name', 'phone', 'description', 'metadata', 'test_clock', 'invoice_settings', 'preferred_locales', 'expand'];
const UPDATE = ['email', 'name', 'phone', 'description', 'metadata', 'invoice_settings', 'preferred_locales', 'expand'];

function email(params: Fields): string | null | undefined {
  const value = text(params, 'email');
  if (value === undefined || value === '') return value === '' ? null : undefined;
  const at = value.indexOf('@');
  if (value.length > 512 || at < 1 || at !== value.lastIndexOf('@') || at === value.length - 1 || value.includes(' '))
    throw invalid(`Invalid email address: ${value}`, 'email', 'email_invalid');
  return value;
}

/** `invoice_settings[default_payment_method]`: one of the test payment methods (`pm_card_visa`...). */
function defaultPaymentMethod(params: Fields): string | null | undefined {
  const settings = object(params, 'invoice_settings');
  if (!settings) return undefined;
  refuseUnknown(settings, ['default_payment_method']);
  const method = text(settings, 'default_payment_method');
  if (method !== undefined && method !== '' && !method.startsWith('pm_'))
    throw invalid(`No such PaymentMethod: '${method}'`, 'invoice_settings[default_payment_method]', 'resource_missing');
  return method === '' ? null : method;
}

const locales = (params: Fields): string[] | undefined =>
  params.preferred_locales === undefined ? undefined : ([] as string[]).concat(params.preferred_locales as string);

function createCustomer(ctx: Ctx, params: Fields): Stripe.Customer {
  refuseUnknown(params, CREATE);
  const clock = text(params, 'test_clock') ?? null;
  if (clock) {
    ctx.account.clock(clock);
    const onClock = [...ctx.account.customers.values()].filter((c) => c.test_clock === clock).length;
    if (onClock >= CUSTOMERS_PER_CLOCK) throw invalid(`A test clock can have at most ${CUSTOMERS_PER_CLOCK} customers.`, 'test_clock');
  }
  const customer: Stripe.Customer = {
    id: newId('cus'),
    object: 'customer',
    address: null,
    balance: 0,
    created: ctx.account.time(clock),
    currency: null,
    default_source: null,
    delinquent: false,
    description: text(params, 'description') ?? null,
    discount: null,
    email: email(params) ?? null,
    invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: defaultPaymentMethod(params) ?? null, footer: null, rendering_options: null },
    livemode: false,
    metadata: metadata(params) ?? {},
    name: text(params, 'name') ?? null,
    next_invoice_sequence: 1,
    phone: text(params, 'phone') ?? null,
    preferred_locales: locales(params) ?? [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: clock,
  };
  ctx.account.customers.set(customer.id, customer);
  ctx.emit('customer.created', customer, clock);
  return customer;
}

function updateCustomer(ctx: Ctx, customer: Stripe.Customer, params: Fields): Stripe.Customer {
  refuseUnknown(params, UPDATE);
  const before = structuredClone(customer);
  const newEmail = email(params);
  if (newEmail !== undefined) customer.email = newEmail;
  for (const field of ['name', 'phone', 'description'] as const) {
    const value = text(params, field);
    if (value !== undefined) customer[field] = value || null;
  }
  const method = defaultPaymentMethod(params);
  if (method !== undefined) customer.invoice_settings.default_payment_method = method;
  customer.metadata = mergeMetadata(customer.metadata, metadata(params));
  customer.preferred_locales = locales(params) ?? customer.preferred_locales;
  ctx.emitChanges('customer.updated', before, customer, ctx.account.clockOfCustomer(customer.id));
  return customer;
}

export const customerRoutes: Route[] = [
  ['POST', '/v1/customers', (ctx, params) => ({ body: render(ctx.account, createCustomer(ctx, params), params) })],
  [
    'GET',
    '/v1/customers/search',
    (ctx, params) => {
      refuseUnknown(params, ['query', 'limit', 'page', 'expand']);
      const found = searchOf([...ctx.account.customers.values()], params, '/v1/customers/search', {
        email: (c) => c.email,
        name: (c) => c.name,
        phone: (c) => c.phone,
      });
      return { body: render(ctx.account, found, params) };
    },
  ],
  ['GET', '/v1/customers/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.customer(id, 'id'), params) })],
  ['POST', '/v1/customers/:id', (ctx, params, [id]) => ({ body: render(ctx.account, updateCustomer(ctx, ctx.account.customer(id, 'id'), params), params) })],
  [
    'GET',
    '/v1/customers',
    (ctx, params) => {
      refuseUnknown(params, listParams('email', 'test_clock'));
      const wanted = text(params, 'email');
      const clock = text(params, 'test_clock');
      // As Stripe's: customers on a test clock are listed only when that clock is asked for.
      const all = [...ctx.account.customers.values()].filter((c) => (wanted === undefined || c.email === wanted) && (c.test_clock ?? undefined) === clock);
      return { body: render(ctx.account, listOf(all, params, '/v1/customers', 'customer'), params) };
    },
  ],
];
