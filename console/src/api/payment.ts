import type { operations } from '../../../client/openapi/payment';
import { call, type Ok } from './http';

/** The payment admin answers as payment's API document types them. */
export type UnsyncedAnswer = Ok<operations['admin-unsynced']>;
export type UnsyncedPayment = UnsyncedAnswer['payments'][number];
export type ReplayAnswer = Ok<operations['admin-replay']>;
export type ApproveAnswer = Ok<operations['admin-payment-approve']>;
export type RejectAnswer = Ok<operations['admin-payment-reject']>;
export type ReviewDecision = Ok<operations['admin-review-decisions']>['decisions'][number];
export type BillingTimeline = Ok<operations['admin-user-billing']>;
export type TimelineEntry = BillingTimeline['entries'][number];
export type AccountsAnswer = Ok<operations['admin-accounts']>;
export type AccountState = AccountsAnswer['state'];

const payment = (paymentIntentId: string) => ({ params: { path: { paymentIntentId } } });

export const paymentApi = {
  unsynced: (): Promise<UnsyncedAnswer> => call('payment', (c) => c.payment.GET('/payment/admin/unsynced')),
  replay: (): Promise<ReplayAnswer> => call('payment', (c) => c.payment.POST('/payment/admin/replay', { body: {} })),
  approve: (paymentIntentId: string, reason: string): Promise<ApproveAnswer> =>
    call('payment', (c) => c.payment.POST('/payment/admin/payments/{paymentIntentId}/approve', { ...payment(paymentIntentId), body: { reason } })),
  reject: (paymentIntentId: string, reason: string): Promise<RejectAnswer> =>
    call('payment', (c) => c.payment.POST('/payment/admin/payments/{paymentIntentId}/reject', { ...payment(paymentIntentId), body: { reason } })),
  billing: (userId: string): Promise<BillingTimeline> =>
    call('payment', (c) => c.payment.GET('/payment/admin/users/{userId}/billing', { params: { path: { userId } } })),
  accounts: (state: AccountState, offset = 0, limit = 50): Promise<AccountsAnswer> =>
    call('payment', (c) => c.payment.GET('/payment/admin/accounts', { params: { query: { state, offset, limit } } })),
  decisions: (limit = 20): Promise<{ decisions: ReviewDecision[] }> =>
    call('payment', (c) => c.payment.GET('/payment/admin/review-decisions', { params: { query: { limit } } })),
};
