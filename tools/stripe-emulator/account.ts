import Stripe from 'stripe';
import { missing, newId, nowSeconds, type Fields } from './errors';

/**
 * The local Stripe account: every object the server holds, in memory, in creation order (lists
 * walk them newest first). Each resource module (customers.ts, subscriptions.ts, invoices.ts...)
 * reads and changes it; none keeps state of its own.
 */

/** How renewals that fail are retried, as an account's Billing settings say (docs/payment.md, "Local Stripe: Billing"). */
export interface BillingSettings {
  /** Days after the first failed automatic attempt at which the invoice is attempted again. */
  retryDays: number[];
  /** What happens to the subscription when the last retry fails: canceled (the default) or left unpaid. */
  afterRetries: 'cancel' | 'unpaid';
}

export const DEFAULT_BILLING: BillingSettings = { retryDays: [3, 5, 7], afterRetries: 'cancel' };

export interface SubscriptionRecord {
  sub: Stripe.Subscription;
  /** The billing cycle anchor periods are counted from, and the index of the current period. */
  anchor: number;
  cycle: number;
  /** Proration lines waiting for the subscription's next invoice (proration_behavior create_prorations). */
  pending: Stripe.InvoiceLineItem[];
}

export interface InvoiceRecord {
  /** The invoice as answered, without its includable fields (payments, confirmation_secret). */
  invoice: Stripe.Invoice;
  intent?: string;
  payment?: string;
  /** Automatic attempts that failed: the retry schedule counts them. */
  automaticFailures: number;
  /** When the first automatic attempt failed: retries are scheduled from it. */
  firstFailure?: number;
}

export class Account {
  /** The server's own address, for the URLs it hands out (hosted invoices, PDFs, the portal). */
  baseUrl = '';
  readonly intents = new Map<string, Stripe.PaymentIntent>();
  readonly charges = new Map<string, Stripe.Charge>();
  readonly refunds = new Map<string, Stripe.Refund>();
  readonly customers = new Map<string, Stripe.Customer>();
  readonly products = new Map<string, Stripe.Product>();
  readonly prices = new Map<string, Stripe.Price>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly invoices = new Map<string, InvoiceRecord>();
  readonly invoicePayments = new Map<string, Stripe.InvoicePayment>();
  /** The invoice a PaymentIntent pays (Stripe's PaymentIntent no longer names it: its InvoicePayment does). */
  readonly invoiceOfIntent = new Map<string, string>();
  readonly disputes = new Map<string, Stripe.Dispute>();
  readonly clocks = new Map<string, Stripe.TestHelpers.TestClock>();
  readonly portalSessions = new Map<string, Stripe.BillingPortal.Session>();
  readonly events = new Map<string, Stripe.Event>();

  constructor(readonly billing: BillingSettings) {}

  /** Now for objects of this test clock (its frozen time), or the real now for objects on none. */
  time(clock: string | null | undefined): number {
    if (!clock) return nowSeconds();
    return this.clocks.get(clock)?.frozen_time ?? nowSeconds();
  }

  clockOfCustomer(customer: string | null | undefined): string | null {
    if (!customer) return null;
    const clock = this.customers.get(customer)?.test_clock;
    return typeof clock === 'string' ? clock : null;
  }

  customer(id: string, param = 'customer'): Stripe.Customer {
    const found = this.customers.get(id);
    if (!found) throw missing('customer', id, param);
    return found;
  }

  price(id: string, param = 'price'): Stripe.Price {
    const found = this.prices.get(id);
    if (!found) throw missing('price', id, param);
    return found;
  }

  product(id: string, param = 'product'): Stripe.Product {
    const found = this.products.get(id);
    if (!found) throw missing('product', id, param);
    return found;
  }

  subscription(id: string, param = 'subscription'): SubscriptionRecord {
    const found = this.subscriptions.get(id);
    if (!found) throw missing('subscription', id, param);
    return found;
  }

  invoice(id: string, param = 'invoice'): InvoiceRecord {
    const found = this.invoices.get(id);
    if (!found) throw missing('invoice', id, param);
    return found;
  }

  intent(id: string, param = 'intent'): Stripe.PaymentIntent {
    const found = this.intents.get(id);
    if (!found) throw missing('payment_intent', id, param);
    return found;
  }

  charge(id: string, param = 'charge'): Stripe.Charge {
    const found = this.charges.get(id);
    if (!found) throw missing('charge', id, param);
    return found;
  }

  dispute(id: string, param = 'dispute'): Stripe.Dispute {
    const found = this.disputes.get(id);
    if (!found) throw missing('dispute', id, param);
    return found;
  }

  clock(id: string, param = 'test_clock'): Stripe.TestHelpers.TestClock {
    const found = this.clocks.get(id);
    if (!found) throw missing('test_helpers.test_clock', id, param);
    return found;
  }
}

/** The object an event carries: any of the account's objects. */
export type EventObject = { id: string; object: string };

/** Who caused an event: an API request (its id and Idempotency-Key), or Stripe itself (a test clock's advance). */
export interface EventRequest {
  id: string | null;
  idempotency_key: string | null;
}

/**
 * One request's changes: the events they raise, recorded in order and delivered (events.ts) once
 * the request's changes are all made, so a webhook that calls back reads a consistent account.
 */
export class Ctx {
  readonly events: Stripe.Event[];

  constructor(
    readonly account: Account,
    readonly request: EventRequest,
    events: Stripe.Event[] = [],
  ) {
    this.events = events;
  }

  /** The same request's outbox for what Stripe does on its own (no request id): a test clock's advance. */
  automatic(): Ctx {
    return new Ctx(this.account, { id: null, idempotency_key: null }, this.events);
  }

  /**
   * Records an event carrying a copy of `object` as it is now, created at the time of `clock` (a
   * test clock's frozen time for its objects, else now); `previous` is `data.previous_attributes`
   * of an `*.updated` event.
   */
  emit(type: string, object: EventObject, clock: string | null, previous?: Fields): Stripe.Event {
    const event = {
      id: newId('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: this.account.time(clock),
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: structuredClone(previous) } : {}) },
      livemode: false,
      pending_webhooks: 0,
      request: { ...this.request },
      type,
    } as unknown as Stripe.Event;
    this.account.events.set(event.id, event);
    this.events.push(event);
    return event;
  }

  /** An `*.updated` event for `after` when it differs from the copy `before`, with the changed fields as they were. */
  emitChanges(type: string, before: EventObject, after: EventObject, clock: string | null): void {
    const previous = changedFields(before, after);
    if (previous) this.emit(type, after, clock, previous);
  }
}

/** The top-level fields of `after` that differ from `before`, with their values in `before`: an event's `previous_attributes`. */
export function changedFields(before: object, after: object): Fields | undefined {
  const previous: Fields = {};
  const was = before as Fields;
  const now = after as Fields;
  for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (JSON.stringify(was[key]) !== JSON.stringify(now[key])) previous[key] = was[key] ?? null;
  }
  return Object.keys(previous).length ? previous : undefined;
}

/** A Stripe decimal string (`unit_amount_decimal`, `amount_decimal`): the client turns the string it receives into its Decimal. */
export const decimalString = (amount: number) => String(amount) as unknown as Stripe.Price['unit_amount_decimal'];

/** An amount as a receipt writes it: 2900 usd is $29.00. */
export const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
