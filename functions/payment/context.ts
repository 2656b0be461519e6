import { PAYMENT_SETTINGS } from './settings';
import { defineContext } from '../../shared/context';
import { DATABASE } from '../../shared/sql/db';
import type { PaymentDb } from './db/tables';

/** What payment's code is handed per invocation: the shared part, and its view of the database. */
export const paymentContext = defineContext('payment', PAYMENT_SETTINGS, ({ platform }) => ({
  /** The platform's database (one pool per platform, opened on first use), as payment's tables. */
  get db(): PaymentDb {
    return platform.get(DATABASE) as PaymentDb;
  },
}));

export type PaymentContext = ReturnType<typeof paymentContext>;
