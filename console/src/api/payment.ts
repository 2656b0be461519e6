import { request } from './http';

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
  unsynced: () => request<UnsyncedAnswer>('payment', '/admin/unsynced'),
  replay: () => request<ReplayAnswer>('payment', '/admin/replay', { method: 'POST', body: {} }),
};
