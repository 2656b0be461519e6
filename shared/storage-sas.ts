import { BlobSASPermissions, SASProtocol, StorageSharedKeyCredential, type UserDelegationKey } from '@azure/storage-blob';
import { blobServiceClient } from './storage';

/** SAS start times are back-dated so a link works at once on a server whose clock runs slightly behind ours. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Azure issues user-delegation keys for at most 7 days; we ask for one day and reuse it while it still covers a link's lifetime. */
const DELEGATION_KEY_LIFETIME_MS = 24 * 3600_000;
/** A link may not outlive the key that signs it, so longer links are refused rather than silently shortened. */
export const MAX_LINK_TTL_SECONDS = 12 * 3600;

let delegationKey: { key: UserDelegationKey; expiresOn: number } | undefined;
let pendingKey: Promise<UserDelegationKey> | undefined;

/**
 * A user-delegation key (managed identity: no account key exists), cached per process and shared by
 * concurrent callers; fetched again when it would expire before a link signed now.
 */
async function userDelegationKey(validUntil: number): Promise<UserDelegationKey> {
  if (delegationKey && delegationKey.expiresOn > validUntil) return delegationKey.key;
  pendingKey ??= (async () => {
    const startsOn = new Date(Date.now() - CLOCK_SKEW_MS);
    const expiresOn = new Date(Date.now() + DELEGATION_KEY_LIFETIME_MS);
    const key = await blobServiceClient().getUserDelegationKey(startsOn, expiresOn);
    delegationKey = { key, expiresOn: expiresOn.getTime() };
    return key;
  })().finally(() => {
    pendingKey = undefined;
  });
  return pendingKey;
}

/**
 * A read-only, time-limited URL for one blob. Signed with the account key when the storage
 * connection string carries one (Azurite locally), otherwise with a user-delegation key obtained
 * by the managed identity (which needs the Storage Blob Delegator role, included in Storage Blob
 * Data Contributor). Links are HTTPS-only in Azure; Azurite serves plain HTTP.
 */
export async function readOnlyLink(containerName: string, blobName: string, ttlSeconds: number): Promise<string> {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_LINK_TTL_SECONDS) {
    throw new RangeError(`ttlSeconds must be an integer from 1 to ${MAX_LINK_TTL_SECONDS}`);
  }
  const service = blobServiceClient();
  const blob = service.getContainerClient(containerName).getBlobClient(blobName);
  const now = Date.now();
  const options = {
    permissions: BlobSASPermissions.parse('r'),
    startsOn: new Date(now - CLOCK_SKEW_MS),
    expiresOn: new Date(now + ttlSeconds * 1000),
  };
  if (service.credential instanceof StorageSharedKeyCredential) return blob.generateSasUrl(options);
  const key = await userDelegationKey(options.expiresOn.getTime());
  return blob.generateUserDelegationSasUrl({ ...options, protocol: SASProtocol.Https }, key);
}

/** Forget the cached delegation key (tests, and the dev host when it points at another account). */
export function resetSasKeys(): void {
  delegationKey = undefined;
  pendingKey = undefined;
}
