import type { TableClient } from '@azure/data-tables';
import type { Plan } from '../../shared/auth/access-token';
import { vendored } from '../../shared/vendor';
import type { PaymentNeeds } from './context';

/** A failed-sync record lives 86400 seconds (24 hours). */
export const FAILED_SYNC_TTL_SECONDS = 86_400;
/**
 * Every record lives in one partition whose RowKey is the record's published key itself, so
 * `auth_sync_failed:<userId>` is a point read (PartitionKey 'auth_sync_failed', RowKey the key),
 * and the cleanup timer can delete expired rows in batches of 100 (one partition per batch).
 */
export const FAILED_SYNC_PARTITION = 'auth_sync_failed';
export const failedSyncKey = (userId: string) => `auth_sync_failed:${userId}`;

/** The record's JSON value: userId, planType, error, timestamp (ISO 8601) and retryCount. */
export interface FailedSyncValue {
  userId: string;
  planType: Plan;
  error: string;
  timestamp: string;
  retryCount: number;
}

interface FailedSyncEntity {
  partitionKey: string;
  rowKey: string;
  /** The JSON value, stored as the text a key-value store would hold. */
  value: string;
  /** Table Storage has no TTL: readers skip rows past this, the cleanup timer deletes them. */
  expiresAt: Date;
}

/** Where the records live: the platform's storage account, table PAYMENT_FAILED_SYNC_TABLE. */
export type FailedSyncStore = PaymentNeeds<'storage' | 'config'>;

const records = (ctx: FailedSyncStore): Promise<TableClient> => ctx.storage.table(ctx.config.PAYMENT_FAILED_SYNC_TABLE);

/** Writes (or replaces) the user's record, alive for 24 hours from `now`. */
export async function storeFailedSync(ctx: FailedSyncStore, value: FailedSyncValue, now: Date): Promise<void> {
  const entity: FailedSyncEntity = {
    partitionKey: FAILED_SYNC_PARTITION,
    rowKey: failedSyncKey(value.userId),
    value: JSON.stringify(value),
    expiresAt: new Date(now.getTime() + FAILED_SYNC_TTL_SECONDS * 1000),
  };
  await (await records(ctx)).upsertEntity(entity, 'Replace');
}

/** The live record of a user at `now`, or undefined when there is none or it has expired. */
export async function readFailedSync(ctx: FailedSyncStore, userId: string, now: Date): Promise<(FailedSyncValue & { expiresAt: string }) | undefined> {
  try {
    const entity = await (await records(ctx)).getEntity<FailedSyncEntity>(FAILED_SYNC_PARTITION, failedSyncKey(userId));
    if (new Date(entity.expiresAt).getTime() <= now.getTime()) return undefined;
    return { ...(JSON.parse(entity.value) as FailedSyncValue), expiresAt: new Date(entity.expiresAt).toISOString() };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

export async function deleteFailedSync(ctx: FailedSyncStore, userId: string): Promise<void> {
  try {
    await (await records(ctx)).deleteEntity(FAILED_SYNC_PARTITION, failedSyncKey(userId));
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
}

/** Deletes every record expired at `now` in transactions of at most 100 (the Table Storage batch limit); returns how many. */
export async function deleteExpiredFailedSyncs(ctx: FailedSyncStore, now: Date): Promise<number> {
  const { odata } = vendored('@azure/data-tables');
  const client = await records(ctx);
  const expired = client.listEntities<FailedSyncEntity>({
    queryOptions: { filter: odata`PartitionKey eq ${FAILED_SYNC_PARTITION} and expiresAt le ${now}`, select: ['rowKey'] },
  });
  let batch: string[] = [];
  let deleted = 0;
  const flush = async () => {
    if (!batch.length) return;
    await client.submitTransaction(batch.map((rowKey) => ['delete', { partitionKey: FAILED_SYNC_PARTITION, rowKey }]));
    deleted += batch.length;
    batch = [];
  };
  for await (const entity of expired) {
    batch.push(entity.rowKey!);
    if (batch.length === 100) await flush();
  }
  await flush();
  return deleted;
}
