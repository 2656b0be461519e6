import type Stripe from 'stripe';
import { decimalString, type Account, type Ctx } from './account';
import { invalid, newId, refuseUnknown, unsupported, type Fields } from './errors';
import { render } from './expand';
import { boolean, integer, listOf, listParams, mergeMetadata, metadata, object, oneOf, required, text } from './params';
import type { Route } from './router';

/**
 * Products and Prices, created when the platform first needs them (a price found by its
 * `lookup_key`, else created): products (name, description, metadata, active) and flat prices,
 * one-time or recurring (`recurring[interval]` day, week, month or year, `recurring[interval_count]`),
 * with a `lookup_key` unique among the account's prices (`transfer_lookup_key` moves it from the
 * price that has it), listed by `lookup_keys[]`, `product`, `active`, `type`, `currency`.
 */

const INTERVALS = ['day', 'week', 'month', 'year'] as const;

function productObject(ctx: Ctx, params: Fields): Stripe.Product {
  const now = ctx.account.time(null);
  const id = text(params, 'id') ?? newId('prod');
  if (ctx.account.products.has(id)) throw invalid(`Product already exists: ${id}`, 'id', 'resource_already_exists');
  return {
    id,
    object: 'product',
    active: boolean(params, 'active') ?? true,
    created: now,
    default_price: null,
    description: text(params, 'description') ?? null,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: metadata(params) ?? {},
    name: required(params, 'name'),
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    tax_details: null,
    type: 'service',
    unit_label: null,
    updated: now,
    url: null,
  };
}

export function createProduct(ctx: Ctx, params: Fields): Stripe.Product {
  const product = productObject(ctx, params);
  ctx.account.products.set(product.id, product);
  ctx.emit('product.created', product, null);
  return product;
}

/** A lookup key names one price: taking it from another needs `transfer_lookup_key` (and updates that price). */
function claimLookupKey(ctx: Ctx, key: string, transfer: boolean, claimant: string): void {
  const holder = [...ctx.account.prices.values()].find((p) => p.lookup_key === key && p.id !== claimant);
  if (!holder) return;
  if (!transfer) throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, 'lookup_key');
  const previous = { lookup_key: holder.lookup_key };
  holder.lookup_key = null;
  ctx.emit('price.updated', holder, null, previous);
}

function recurringOf(params: Fields): Stripe.Price.Recurring | null {
  const recurring = object(params, 'recurring');
  if (!recurring) return null;
  refuseUnknown(recurring, ['interval', 'interval_count', 'usage_type']);
  const interval = oneOf(recurring, 'interval', INTERVALS);
  if (!interval) throw invalid('Missing required param: recurring[interval].', 'recurring[interval]', 'parameter_missing');
  const count = integer(recurring, 'interval_count') ?? 1;
  const max = { day: 1095, week: 156, month: 36, year: 3 }[interval];
  if (count < 1 || count > max) throw invalid(`Invalid recurring[interval_count]: between 1 and ${max} for ${interval}`, 'recurring[interval_count]');
  if (recurring.usage_type !== undefined && recurring.usage_type !== 'licensed') throw unsupported('recurring[usage_type]', 'metered prices');
  return { interval, interval_count: count, meter: null, trial_period_days: null, usage_type: 'licensed' };
}

export function createPrice(ctx: Ctx, params: Fields): Stripe.Price {
  refuseUnknown(params, [
    'currency',
    'unit_amount',
    'product',
    'product_data',
    'recurring',
    'lookup_key',
    'transfer_lookup_key',
    'nickname',
    'metadata',
    'active',
    'tax_behavior',
    'expand',
  ]);
  const currency = required(params, 'currency').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency}`, 'currency');
  const amount = integer(params, 'unit_amount');
  if (amount === undefined) throw invalid('Missing required param: unit_amount.', 'unit_amount', 'parameter_missing');
  if (amount < 0) throw invalid('Invalid unit_amount: must be at least 0', 'unit_amount');
  const productData = object(params, 'product_data');
  let product: string;
  if (productData) {
    refuseUnknown(productData, ['name', 'metadata', 'active', 'id']);
    product = createProduct(ctx, productData).id;
  } else product = ctx.account.product(required(params, 'product'), 'product').id;
  const recurring = recurringOf(params);
  const id = newId('price');
  const lookupKey = text(params, 'lookup_key') ?? null;
  if (lookupKey) claimLookupKey(ctx, lookupKey, boolean(params, 'transfer_lookup_key') ?? false, id);
  const price: Stripe.Price = {
    id,
    object: 'price',
    active: boolean(params, 'active') ?? true,
    billing_scheme: 'per_unit',
    created: ctx.account.time(null),
    currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: lookupKey,
    metadata: metadata(params) ?? {},
    nickname: text(params, 'nickname') ?? null,
    product,
    recurring,
    tax_behavior: oneOf(params, 'tax_behavior', ['exclusive', 'inclusive', 'unspecified']) ?? 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: recurring ? 'recurring' : 'one_time',
    unit_amount: amount,
    unit_amount_decimal: decimalString(amount),
  };
  ctx.account.prices.set(id, price);
  ctx.emit('price.created', price, null);
  return price;
}

function updatePrice(ctx: Ctx, price: Stripe.Price, params: Fields): Stripe.Price {
  refuseUnknown(params, ['active', 'lookup_key', 'transfer_lookup_key', 'nickname', 'metadata', 'expand']);
  const before = structuredClone(price);
  const lookupKey = text(params, 'lookup_key');
  if (lookupKey !== undefined) {
    if (lookupKey) claimLookupKey(ctx, lookupKey, boolean(params, 'transfer_lookup_key') ?? false, price.id);
    price.lookup_key = lookupKey || null;
  }
  price.active = boolean(params, 'active') ?? price.active;
  const nickname = text(params, 'nickname');
  if (nickname !== undefined) price.nickname = nickname || null;
  price.metadata = mergeMetadata(price.metadata, metadata(params));
  ctx.emitChanges('price.updated', before, price, null);
  return price;
}

function updateProduct(ctx: Ctx, product: Stripe.Product, params: Fields): Stripe.Product {
  refuseUnknown(params, ['active', 'name', 'description', 'metadata', 'expand']);
  const before = structuredClone(product);
  product.active = boolean(params, 'active') ?? product.active;
  product.name = text(params, 'name') || product.name;
  const description = text(params, 'description');
  if (description !== undefined) product.description = description || null;
  product.metadata = mergeMetadata(product.metadata, metadata(params));
  product.updated = ctx.account.time(null);
  ctx.emitChanges('product.updated', before, product, null);
  return product;
}

function listPrices(account: Account, params: Fields): Stripe.ApiList<Stripe.Price> {
  refuseUnknown(params, listParams('active', 'currency', 'lookup_keys', 'product', 'type', 'recurring'));
  const active = boolean(params, 'active');
  const currency = text(params, 'currency');
  const product = text(params, 'product');
  const type = oneOf(params, 'type', ['one_time', 'recurring']);
  const keys = params.lookup_keys === undefined ? undefined : ([] as unknown[]).concat(params.lookup_keys);
  const interval = object(params, 'recurring')?.interval;
  const all = [...account.prices.values()].filter(
    (p) =>
      (active === undefined || p.active === active) &&
      (!currency || p.currency === currency) &&
      (!product || p.product === product) &&
      (!type || p.type === type) &&
      (!keys || keys.includes(p.lookup_key)) &&
      (interval === undefined || p.recurring?.interval === interval),
  );
  return listOf(all, params, '/v1/prices', 'price');
}

export const catalogRoutes: Route[] = [
  [
    'POST',
    '/v1/products',
    (ctx, params) => {
      refuseUnknown(params, ['id', 'name', 'description', 'metadata', 'active', 'expand']);
      return { body: render(ctx.account, createProduct(ctx, params), params) };
    },
  ],
  ['GET', '/v1/products/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.product(id, 'id'), params) })],
  ['POST', '/v1/products/:id', (ctx, params, [id]) => ({ body: render(ctx.account, updateProduct(ctx, ctx.account.product(id, 'id'), params), params) })],
  [
    'GET',
    '/v1/products',
    (ctx, params) => {
      refuseUnknown(params, listParams('active'));
      const active = boolean(params, 'active');
      const all = [...ctx.account.products.values()].filter((p) => active === undefined || p.active === active);
      return { body: render(ctx.account, listOf(all, params, '/v1/products', 'product'), params) };
    },
  ],
  ['POST', '/v1/prices', (ctx, params) => ({ body: render(ctx.account, createPrice(ctx, params), params) })],
  ['GET', '/v1/prices/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.price(id, 'price'), params) })],
  ['POST', '/v1/prices/:id', (ctx, params, [id]) => ({ body: render(ctx.account, updatePrice(ctx, ctx.account.price(id, 'price'), params), params) })],
  ['GET', '/v1/prices', (ctx, params) => ({ body: render(ctx.account, listPrices(ctx.account, params), params) })],
];
