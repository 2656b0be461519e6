import type { TableClient, TableServiceClient } from '@azure/data-tables';
import type { BlobServiceClient, ContainerClient } from '@azure/storage-blob';
import type { QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { CREDENTIAL } from './azure-credential';
import { putBlob, type BlobPutOptions, type BlobPutOutcome } from './blob-put';
import { dataStorage } from './storage-account';
import { probeContainer, probeTable } from './storage-rest';
import { currentPlatform, member } from './platform';
import { vendored } from './vendor';

// Each SDK is loaded when its first client is made: a service loads only the ones it uses (cold start).
const blobSdk = () => vendored('@azure/storage-blob');
const queueSdk = () => vendored('@azure/storage-queue');
const tableSdk = () => vendored('@azure/data-tables');

/** The platform's data account (storage-account.ts, dataStorage): its three service clients, and containers, queues and tables made (and created) once. */
export interface Storage {
  readonly blobs: BlobServiceClient;
  readonly queues: QueueServiceClient;
  readonly tables: TableServiceClient;
  container(name: string): Promise<ContainerClient>;
  queue(name: string): Promise<QueueClient>;
  table(name: string): Promise<TableClient>;
  /**
   * One Put Blob through one HTTP request, without the SDK (blob-put.ts): for a write on a
   * request's path. 'exists' only with `ifAbsent`; any other answer than the blob written throws.
   */
  putBlob(containerName: string, name: string, bytes: Uint8Array, options: BlobPutOptions): Promise<BlobPutOutcome>;
  /** Health probes, one request each without the SDKs (storage-rest.ts): a container answers, a table answers a query (each made if missing). */
  probeContainer(name: string): Promise<string>;
  probeTable(name: string): Promise<string>;
  /** Queue messages are base64-encoded JSON, the Functions host's default message encoding. */
  enqueueJson(queueName: string, message: unknown, options?: { visibilityTimeout?: number }): Promise<void>;
}

const BLOB_SERVICE = member('blob service', (platform) => {
  const { connectionString, name } = dataStorage(platform.config);
  const { BlobServiceClient } = blobSdk();
  return connectionString
    ? BlobServiceClient.fromConnectionString(connectionString)
    : new BlobServiceClient(`https://${name}.blob.core.windows.net`, platform.get(CREDENTIAL));
});

const QUEUE_SERVICE = member('queue service', (platform) => {
  const { connectionString, name } = dataStorage(platform.config);
  const { QueueServiceClient } = queueSdk();
  return connectionString
    ? QueueServiceClient.fromConnectionString(connectionString)
    : new QueueServiceClient(`https://${name}.queue.core.windows.net`, platform.get(CREDENTIAL));
});

const TABLE_SERVICE = member('table service', (platform) => {
  const { connectionString, name } = dataStorage(platform.config);
  const { TableServiceClient } = tableSdk();
  return connectionString
    ? TableServiceClient.fromConnectionString(connectionString, { allowInsecureConnection: true })
    : new TableServiceClient(`https://${name}.table.core.windows.net`, platform.get(CREDENTIAL));
});

/**
 * A container, queue or table client, made (and its resource created) once per platform: concurrent
 * callers share the one request, and later ones skip building a client, a tenth of a blob call's CPU.
 */
function ensureOnce<T>(made: Map<string, Promise<unknown>>, key: string, create: () => Promise<T>): Promise<T> {
  let pending = made.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = create().catch((error) => {
      made.delete(key);
      throw error;
    });
    made.set(key, pending);
  }
  return pending;
}

/** The platform's storage (one per platform, its clients made on first use). */
export const STORAGE = member('storage', (platform): Storage => {
  const made = new Map<string, Promise<unknown>>();
  const storage: Storage = {
    get blobs() {
      return platform.get(BLOB_SERVICE);
    },
    get queues() {
      return platform.get(QUEUE_SERVICE);
    },
    get tables() {
      return platform.get(TABLE_SERVICE);
    },
    container: (name) =>
      ensureOnce(made, `blob:${name}`, async () => {
        const client = storage.blobs.getContainerClient(name);
        await client.createIfNotExists();
        return client;
      }),
    queue: (name) =>
      ensureOnce(made, `queue:${name}`, async () => {
        const client = storage.queues.getQueueClient(name);
        await client.createIfNotExists();
        return client;
      }),
    table: (name) =>
      ensureOnce(made, `table:${name}`, async () => {
        const { connectionString, name: accountName } = dataStorage(platform.config);
        const { TableClient } = tableSdk();
        const client = connectionString
          ? TableClient.fromConnectionString(connectionString, name, { allowInsecureConnection: true })
          : new TableClient(`https://${accountName}.table.core.windows.net`, name, platform.get(CREDENTIAL));
        await storage.tables.createTable(name);
        return client;
      }),
    putBlob: (containerName, name, bytes, options) => putBlob(platform, containerName, name, bytes, options),
    probeContainer: (name) => probeContainer(platform, name),
    probeTable: (name) => probeTable(platform, name),
    async enqueueJson(queueName, message, options) {
      const client = await storage.queue(queueName);
      await client.sendMessage(Buffer.from(JSON.stringify(message)).toString('base64'), options);
    },
  };
  return storage;
});

/** The storage of the platform in force (shared code and tests; a service's code gets `ctx.storage`). */
const current = (): Storage => currentPlatform().get(STORAGE);
export const blobServiceClient = (): BlobServiceClient => current().blobs;
export const queueServiceClient = (): QueueServiceClient => current().queues;
export const tableServiceClient = (): TableServiceClient => current().tables;
export const container = (name: string): Promise<ContainerClient> => current().container(name);
export const queue = (name: string): Promise<QueueClient> => current().queue(name);
export const table = (name: string): Promise<TableClient> => current().table(name);
export const enqueueJson = (queueName: string, message: unknown, options?: { visibilityTimeout?: number }): Promise<void> =>
  current().enqueueJson(queueName, message, options);
