import type { UserDelegationKey } from '@azure/storage-blob';
import { config } from '../../../shared/config';
import { currentPlatform, member, currentTimeMs } from '../../../shared/platform';
import { blobServiceClient, container } from '../../../shared/storage';
import { vendored } from '../../../shared/vendor';
import { DependencyError } from '../workflow/error-classification';
import type { ReportAsset, RunLease } from '../workflow/executions';

export interface DownloadLink {
  kind: ReportAsset['kind'];
  fileName: string;
  contentType: string;
  size: number;
  url: string;
  expiresAt: string;
}

/**
 * Stores one report file under `<trackingId>/<attempt>/`: each run of an execution writes its own
 * files, so a run that was superseded (cancelled and retried, or taken over) can never overwrite
 * the files of the run that completes it. Earlier attempts' files go with the container's retention.
 */
export async function storeReportFile(run: RunLease, file: Omit<ReportAsset, 'blob' | 'size'>, content: Buffer): Promise<ReportAsset> {
  const blob = `${run.trackingId}/${run.attempt}/${file.fileName}`;
  try {
    const client = (await container(config().ORCHESTRATOR_REPORTS_CONTAINER)).getBlockBlobClient(blob);
    await client.uploadData(content, { blobHTTPHeaders: { blobContentType: file.contentType } });
  } catch (error) {
    throw new DependencyError('BLOB_STORAGE', error);
  }
  return { ...file, blob, size: content.length };
}

const DELEGATION_KEY = member('user delegation key', () => ({}) as { key?: UserDelegationKey; expiresOn?: Date });

/**
 * Keys of user-delegation SAS are fetched with the managed identity and reused until an hour before
 * they lapse; the platform holds the current one (its storage account's).
 */
async function userDelegationKey(expiresOn: Date): Promise<UserDelegationKey> {
  const held = currentPlatform().get(DELEGATION_KEY);
  if (held.key && held.expiresOn!.getTime() - 3_600_000 > expiresOn.getTime()) return held.key;
  const startsOn = new Date(currentTimeMs() - 5 * 60_000);
  const keyExpiresOn = new Date(Math.max(expiresOn.getTime(), currentTimeMs()) + 24 * 3_600_000);
  held.key = await blobServiceClient().getUserDelegationKey(startsOn, keyExpiresOn);
  held.expiresOn = keyExpiresOn;
  return held.key;
}

/**
 * Read-only, time-limited links: signed with the account key when the connection string has one
 * (Azurite, key-based accounts), otherwise with a user-delegation key of the managed identity.
 */
export async function downloadLinks(assets: ReportAsset[]): Promise<DownloadLink[]> {
  if (!assets.length) return [];
  const cfg = config();
  const { BlobSASPermissions, generateBlobSASQueryParameters, SASProtocol, StorageSharedKeyCredential } = vendored('@azure/storage-blob');
  const service = blobServiceClient();
  const containerName = cfg.ORCHESTRATOR_REPORTS_CONTAINER;
  const startsOn = new Date(currentTimeMs() - 5 * 60_000);
  const expiresOn = new Date(currentTimeMs() + cfg.ORCHESTRATOR_DOWNLOAD_LINK_MINUTES * 60_000);
  const sharedKey = service.credential instanceof StorageSharedKeyCredential ? service.credential : undefined;
  const delegation = sharedKey ? undefined : await userDelegationKey(expiresOn);
  return assets.map((asset) => {
    const values = {
      containerName,
      blobName: asset.blob,
      permissions: BlobSASPermissions.parse('r'),
      startsOn,
      expiresOn,
      protocol: service.url.startsWith('https:') ? SASProtocol.Https : SASProtocol.HttpsAndHttp,
      contentDisposition: `attachment; filename="${asset.fileName}"`,
      contentType: asset.contentType,
    };
    const sas = sharedKey ? generateBlobSASQueryParameters(values, sharedKey) : generateBlobSASQueryParameters(values, delegation!, service.accountName);
    const url = `${service.getContainerClient(containerName).getBlobClient(asset.blob).url}?${sas.toString()}`;
    return { kind: asset.kind, fileName: asset.fileName, contentType: asset.contentType, size: asset.size, url, expiresAt: expiresOn.toISOString() };
  });
}
