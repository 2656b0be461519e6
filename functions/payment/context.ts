import type Stripe from 'stripe';
import { PAYMENT_SETTINGS } from './settings';
import { defineContext } from '../../shared/context';
import { opsFor } from '../../shared/http/route';
import type { Logger } from '../../shared/logging';
import type { RandomSource } from '../../shared/platform';
import { mailerOn, type Mailer } from '../../shared/mail/mailer';
import { DATABASE } from '../../shared/sql/db';
import type { PaymentDb } from './db/tables';
import { identityClient, type IdentityClient } from './identity-client';
import { stripeClient } from './stripe-client';

/**
 * What payment's code is handed per invocation: the shared part (settings, clock, logger, storage,
 * the plan table), its view of the database, and its clients. Each is made on first use, so a
 * health probe or a refused request loads no Stripe library and opens nothing it does not need.
 */
export const paymentContext = defineContext('payment', PAYMENT_SETTINGS, ({ platform, config }) => ({
  /** The platform's database (one pool per platform, opened on first use), as payment's tables. */
  get db(): PaymentDb {
    return platform.get(DATABASE) as PaymentDb;
  },
  /** The platform's Stripe client for the mode in force; a 503 STRIPE_NOT_CONFIGURED when there is none (stripe-client.ts). */
  get stripe(): Stripe {
    return stripeClient(platform);
  },
  /** Identity as payment calls it: the plan push, at {auth_url} with the service admin token. */
  get identity(): IdentityClient {
    return identityClient(config);
  },
  /** How payment sends its billing notices (payment failed, plan ending): SMTP, Azure Communication Services, or the local outbox. */
  get mailer(): Mailer {
    return mailerOn(platform);
  },
  /** Where the sync backoff's jitter comes from (a test seeds it on the platform). */
  get random(): RandomSource {
    return platform.random;
  },
}));

export type PaymentContext = ReturnType<typeof paymentContext>;

/**
 * The part of the context a domain function reaches, named in its signature
 * (`ctx: PaymentNeeds<'db' | 'now'>`): a reader sees what it touches, a test hands it just that.
 */
export type PaymentNeeds<K extends keyof PaymentContext> = Pick<PaymentContext, K>;

/** payment's operations take its context: every handler is declared with this `op`. */
export const op = opsFor<PaymentContext>();

/**
 * The same context with another logger (a child naming an event): its dependencies stay getters,
 * so nothing is made that was not made already.
 */
export function withLog<C extends { log: Logger }>(ctx: C, log: Logger): C {
  return Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(ctx), log: { value: log, enumerable: true } }) as C;
}
