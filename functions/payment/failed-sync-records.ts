import type { TableClient } from '@azure/data-tables';
import type { Plan } from '../../shared/auth/access-token';
import { config } from '../../shared/config';
import { table } from '../../shared/storage';
import { vendored } from '../../shared/vendor';
import { currentTime } from '../../shared/platform';

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

const records = (): Promise<TableClient> => table(config().PAYMENT_FAILED_SYNC_TABLE);

export async function storeFailedSync(value: FailedSyncValue, now: Date = currentTime()): Promise<void> {
  const entity: FailedSyncEntity = {
    partitionKey: FAILED_SYNC_PARTITION,
    rowKey: failedSyncKey(value.userId),
    value: JSON.stringify(value),
    expiresAt: new Date(now.getTime() + FAILED_SYNC_TTL_SECONDS * 1000),
  };
  await (await records()).upsertEntity(entity, 'Replace');
}

/** The live record of a user, or undefined when there is none or it has expired. */
export async function readFailedSync(userId: string, now: Date = currentTime()): Promise<(FailedSyncValue & { expiresAt: string }) | undefined> {
  try {
    const entity = await (await records()).getEntity<FailedSyncEntity>(FAILED_SYNC_PARTITION, failedSyncKey(userId));
    if (new Date(entity.expiresAt).getTime() <= now.getTime()) return undefined;
    return { ...(JSON.parse(entity.value) as FailedSyncValue), expiresAt: new Date(entity.expiresAt).toISOString() };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

export async function deleteFailedSync(userId: string): Promise<void> {
  try {
    await (await records()).deleteEntity(FAILED_SYNC_PARTITION, failedSyncKey(userId));
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
}

/** Deletes every expired record in transactions of at most 100 (the Table Storage batch limit); returns how many. */
export async function deleteExpiredFailedSyncs(now: Date = currentTime()): Promise<number> {
  const { odata } = vendored('@azure/data-tables');
  const client = await records();
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
