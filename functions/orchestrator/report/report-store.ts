import type { UserDelegationKey } from '@azure/storage-blob';
import type { OrchestratorConfig } from '../settings';
import { member } from '../../../shared/platform';
import type { Storage } from '../../../shared/storage';
import { vendored } from '../../../shared/vendor';
import { DependencyError } from '../workflow/error-classification';

/** A stored report file (an execution's `assets`); links are signed when read. */
export interface ReportAsset {
  kind: 'pdf' | 'presentation';
  blob: string;
  contentType: string;
  fileName: string;
  size: number;
}

/** The run a file is stored for: its execution and attempt (its RunLease). */
type StoringRun = { trackingId: string; attempt: number };

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
async function storeReportFile(deps: StoreDeps, run: StoringRun, file: Omit<ReportAsset, 'blob' | 'size'>, content: Buffer): Promise<ReportAsset> {
  const blob = `${run.trackingId}/${run.attempt}/${file.fileName}`;
  try {
    const client = (await deps.storage.container(deps.config.ORCHESTRATOR_REPORTS_CONTAINER)).getBlockBlobClient(blob);
    await client.uploadData(content, { blobHTTPHeaders: { blobContentType: file.contentType } });
  } catch (error) {
    throw new DependencyError('BLOB_STORAGE', error);
  }
  return { ...file, blob, size: content.length };
}

/** The shared page's data (share/page-data.ts) sits beside the run's files: `<trackingId>/<attempt>/report-page.json`. */
const PAGE_FILE = 'report-page.json';

/** Where the page data of the run that stored `pdf` is (its folder), so a report's page always goes with its PDF. */
export const pageBlobOf = (pdf: Pick<ReportAsset, 'blob'>): string => `${pdf.blob.slice(0, pdf.blob.lastIndexOf('/') + 1)}${PAGE_FILE}`;

async function storePage(deps: StoreDeps, run: StoringRun, content: Buffer): Promise<void> {
  try {
    const client = (await deps.storage.container(deps.config.ORCHESTRATOR_REPORTS_CONTAINER)).getBlockBlobClient(
      `${run.trackingId}/${run.attempt}/${PAGE_FILE}`,
    );
    await client.uploadData(content, { blobHTTPHeaders: { blobContentType: 'application/json' } });
  } catch (error) {
    throw new DependencyError('BLOB_STORAGE', error);
  }
}

/** The page data stored beside `pdf`, or null when the report has none (made before the shared pages). */
async function readPage(deps: StoreDeps, pdf: Pick<ReportAsset, 'blob'>): Promise<Buffer | null> {
  const client = (await deps.storage.container(deps.config.ORCHESTRATOR_REPORTS_CONTAINER)).getBlockBlobClient(pageBlobOf(pdf));
  try {
    return await client.downloadToBuffer();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}

/** The user-delegation key in use, held by the platform (its storage account's). */
export interface HeldDelegationKey {
  key?: UserDelegationKey;
  expiresOn?: Date;
}
export const DELEGATION_KEY = member('user delegation key', (): HeldDelegationKey => ({}));

/**
 * Keys of user-delegation SAS are fetched with the managed identity and reused until an hour before
 * they lapse; the platform holds the current one (its storage account's).
 */
async function userDelegationKey(deps: StoreDeps, expiresOn: Date): Promise<UserDelegationKey> {
  const held = deps.delegation;
  if (held.key && held.expiresOn!.getTime() - 3_600_000 > expiresOn.getTime()) return held.key;
  const nowMs = deps.now().getTime();
  const startsOn = new Date(nowMs - 5 * 60_000);
  const keyExpiresOn = new Date(Math.max(expiresOn.getTime(), nowMs) + 24 * 3_600_000);
  held.key = await deps.storage.blobs.getUserDelegationKey(startsOn, keyExpiresOn);
  held.expiresOn = keyExpiresOn;
  return held.key;
}

/**
 * Read-only, time-limited links: signed with the account key when the connection string has one
 * (Azurite, key-based accounts), otherwise with a user-delegation key of the managed identity.
 */
async function downloadLinks(deps: StoreDeps, assets: ReportAsset[]): Promise<DownloadLink[]> {
  if (!assets.length) return [];
  const cfg = deps.config;
  const { BlobSASPermissions, generateBlobSASQueryParameters, SASProtocol, StorageSharedKeyCredential } = vendored('@azure/storage-blob');
  const service = deps.storage.blobs;
  const containerName = cfg.ORCHESTRATOR_REPORTS_CONTAINER;
  const nowMs = deps.now().getTime();
  const startsOn = new Date(nowMs - 5 * 60_000);
  const expiresOn = new Date(nowMs + cfg.ORCHESTRATOR_DOWNLOAD_LINK_MINUTES * 60_000);
  const sharedKey = service.credential instanceof StorageSharedKeyCredential ? service.credential : undefined;
  const delegation = sharedKey ? undefined : await userDelegationKey(deps, expiresOn);
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

/** What the report store is made of: the platform's storage, the settings (container, link lifetime), the clock, the delegation key held. */
export interface StoreDeps {
  readonly storage: Storage;
  readonly config: OrchestratorConfig;
  now(): Date;
  readonly delegation: HeldDelegationKey;
}

/** Where a run's report files are stored, and the signed links they are read by. */
export interface ReportStore {
  /** The container the files are in (ORCHESTRATOR_REPORTS_CONTAINER). */
  readonly container: string;
  store(run: StoringRun, file: Omit<ReportAsset, 'blob' | 'size'>, content: Buffer): Promise<ReportAsset>;
  downloadLinks(assets: ReportAsset[]): Promise<DownloadLink[]>;
  /** Stores the run's shared-page data beside its files (not one of its assets: nothing links to it). */
  storePage(run: StoringRun, content: Buffer): Promise<void>;
  /** The shared-page data stored beside a report's PDF, or null. */
  readPage(pdf: Pick<ReportAsset, 'blob'>): Promise<Buffer | null>;
}

export const reportStore = (deps: StoreDeps): ReportStore => ({
  container: deps.config.ORCHESTRATOR_REPORTS_CONTAINER,
  store: (run, file, content) => storeReportFile(deps, run, file, content),
  downloadLinks: (assets) => downloadLinks(deps, assets),
  storePage: (run, content) => storePage(deps, run, content),
  readPage: (pdf) => readPage(deps, pdf),
});
