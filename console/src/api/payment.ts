import type { operations } from '../../../client/openapi/payment';
import { call, type Ok } from './http';

/** The payment admin answers as payment's API document types them. */
export type UnsyncedAnswer = Ok<operations['admin-unsynced']>;
export type UnsyncedPayment = UnsyncedAnswer['payments'][number];
export type ReplayAnswer = Ok<operations['admin-replay']>;

export const paymentApi = {
  unsynced: (): Promise<UnsyncedAnswer> => call('payment', (c) => c.payment.GET('/payment/admin/unsynced')),
  replay: (): Promise<ReplayAnswer> => call('payment', (c) => c.payment.POST('/payment/admin/replay', { body: {} })),
};
