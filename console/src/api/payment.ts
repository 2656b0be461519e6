import { asView, call } from './http';

export type SyncState = 'pending' | 'failed' | 'manual_review';

export interface UnsyncedPayment {
  paymentIntentId: string;
  userId: string;
  planType: string;
  amount: number;
  currency: string;
  status: string;
  sync: { state: SyncState; plan: string | null; attempts: number; lastError: string | null; nextAttemptAt: string | null };
  createdAt: string;
  updatedAt: string;
  failedSyncRecord: { userId: string; planType: string; error: string; timestamp: string; retryCount: number; expiresAt: string } | null;
}

export interface UnsyncedAnswer {
  generatedAt: string;
  summary: { pending: number; failed: number; manual_review: number; total: number };
  limit: number;
  failedSyncRecordsAvailable: boolean;
  payments: UnsyncedPayment[];
}

export interface ReplayAnswer {
  success: boolean;
  replayedPayments: number;
  users: number;
  failedUsers: number;
  results: ({ success: true; userId: string; plan?: string } | { success: false; userId: string; error: string; details: string })[];
}

export const paymentApi = {
  // The document leaves each payment and each replay result open: the console reads them as the views above.
  unsynced: (): Promise<UnsyncedAnswer> => call('payment', (c) => c.payment.GET('/payment/admin/unsynced')).then(asView<UnsyncedAnswer>()),
  replay: (): Promise<ReplayAnswer> => call('payment', (c) => c.payment.POST('/payment/admin/replay', { body: {} })).then(asView<ReplayAnswer>()),
};
