import type { TableClient, TableServiceClient } from '@azure/data-tables';
import type { BlobServiceClient, ContainerClient } from '@azure/storage-blob';
import type { QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { azureCredential } from './azure-credential';
import { config, ConfigError } from './config';
import { currentPlatform, member } from './platform';
import { vendored } from './vendor';

// Each SDK is loaded when its first client is made: a service loads only the ones it uses (cold start).
const blobSdk = () => vendored('@azure/storage-blob');
const queueSdk = () => vendored('@azure/storage-queue');
const tableSdk = () => vendored('@azure/data-tables');

/**
 * Storage clients for the account in AzureWebJobsStorage: a connection string (Azurite locally),
 * or, in Azure, the identity-based form AzureWebJobsStorage__accountName with the managed identity.
 */
function account(): { connectionString?: string; name?: string } {
  const cfg = config();
  if (cfg.AzureWebJobsStorage) return { connectionString: cfg.AzureWebJobsStorage };
  if (cfg.AzureWebJobsStorage__accountName) return { name: cfg.AzureWebJobsStorage__accountName };
  throw new ConfigError(['AzureWebJobsStorage: missing (set a connection string, or AzureWebJobsStorage__accountName for managed identity)']);
}

/** The platform's container, queue and table clients (each made once, with its resource). */
const CLIENTS = member('storage clients', () => new Map<string, Promise<unknown>>());
const clients = () => currentPlatform().get(CLIENTS);

/**
 * A container, queue or table client, made (and its resource created) once per process: concurrent
 * callers share the one request, and later ones skip building a client, a tenth of a blob call's CPU.
 */
function ensureOnce<T>(key: string, create: () => Promise<T>): Promise<T> {
  const made = clients();
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

export const blobServiceClient = (): BlobServiceClient => currentPlatform().get(BLOB_SERVICE);
const BLOB_SERVICE = member('blob service', () => {
  const { connectionString, name } = account();
  const { BlobServiceClient } = blobSdk();
  return connectionString
    ? BlobServiceClient.fromConnectionString(connectionString)
    : new BlobServiceClient(`https://${name}.blob.core.windows.net`, azureCredential());
});

export const queueServiceClient = (): QueueServiceClient => currentPlatform().get(QUEUE_SERVICE);
const QUEUE_SERVICE = member('queue service', () => {
  const { connectionString, name } = account();
  const { QueueServiceClient } = queueSdk();
  return connectionString
    ? QueueServiceClient.fromConnectionString(connectionString)
    : new QueueServiceClient(`https://${name}.queue.core.windows.net`, azureCredential());
});

export const tableServiceClient = (): TableServiceClient => currentPlatform().get(TABLE_SERVICE);
const TABLE_SERVICE = member('table service', () => {
  const { connectionString, name } = account();
  const { TableServiceClient } = tableSdk();
  return connectionString
    ? TableServiceClient.fromConnectionString(connectionString, { allowInsecureConnection: true })
    : new TableServiceClient(`https://${name}.table.core.windows.net`, azureCredential());
});

export function container(name: string): Promise<ContainerClient> {
  return ensureOnce(`blob:${name}`, async () => {
    const client = blobServiceClient().getContainerClient(name);
    await client.createIfNotExists();
    return client;
  });
}

export function queue(name: string): Promise<QueueClient> {
  return ensureOnce(`queue:${name}`, async () => {
    const client = queueServiceClient().getQueueClient(name);
    await client.createIfNotExists();
    return client;
  });
}

export function table(name: string): Promise<TableClient> {
  return ensureOnce(`table:${name}`, async () => {
    const { connectionString, name: accountName } = account();
    const { TableClient } = tableSdk();
    const client = connectionString
      ? TableClient.fromConnectionString(connectionString, name, { allowInsecureConnection: true })
      : new TableClient(`https://${accountName}.table.core.windows.net`, name, azureCredential());
    await tableServiceClient().createTable(name);
    return client;
  });
}

/** Queue messages are base64-encoded JSON, the Functions host's default message encoding. */
export async function enqueueJson(queueName: string, message: unknown, options?: { visibilityTimeout?: number }): Promise<void> {
  const client = await queue(queueName);
  await client.sendMessage(Buffer.from(JSON.stringify(message)).toString('base64'), options);
}
