import type { TableClient, TableServiceClient } from '@azure/data-tables';
import type { BlobServiceClient, ContainerClient } from '@azure/storage-blob';
import type { QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { azureCredential } from './azure-credential';
import { config, ConfigError } from './config';

// Each SDK is loaded when its first client is made: a service loads only the ones it uses (cold start).
const blobSdk = () => require('@azure/storage-blob') as typeof import('@azure/storage-blob');
const queueSdk = () => require('@azure/storage-queue') as typeof import('@azure/storage-queue');
const tableSdk = () => require('@azure/data-tables') as typeof import('@azure/data-tables');

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

let blobService: BlobServiceClient | undefined;
let queueService: QueueServiceClient | undefined;
let tableService: TableServiceClient | undefined;
const clients = new Map<string, Promise<unknown>>();

/**
 * A container, queue or table client, made (and its resource created) once per process: concurrent
 * callers share the one request, and later ones skip building a client, a tenth of a blob call's CPU.
 */
function ensureOnce<T>(key: string, create: () => Promise<T>): Promise<T> {
  let pending = clients.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = create().catch((error) => {
      clients.delete(key);
      throw error;
    });
    clients.set(key, pending);
  }
  return pending;
}

export function blobServiceClient(): BlobServiceClient {
  if (!blobService) {
    const { connectionString, name } = account();
    const { BlobServiceClient } = blobSdk();
    blobService = connectionString
      ? BlobServiceClient.fromConnectionString(connectionString)
      : new BlobServiceClient(`https://${name}.blob.core.windows.net`, azureCredential());
  }
  return blobService;
}

export function queueServiceClient(): QueueServiceClient {
  if (!queueService) {
    const { connectionString, name } = account();
    const { QueueServiceClient } = queueSdk();
    queueService = connectionString
      ? QueueServiceClient.fromConnectionString(connectionString)
      : new QueueServiceClient(`https://${name}.queue.core.windows.net`, azureCredential());
  }
  return queueService;
}

export function tableServiceClient(): TableServiceClient {
  if (!tableService) {
    const { connectionString, name } = account();
    const { TableServiceClient } = tableSdk();
    tableService = connectionString
      ? TableServiceClient.fromConnectionString(connectionString, { allowInsecureConnection: true })
      : new TableServiceClient(`https://${name}.table.core.windows.net`, azureCredential());
  }
  return tableService;
}

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

/** Forget clients (the dev host calls this when it stops, so a new host can point elsewhere). */
export function resetStorageClients(): void {
  blobService = undefined;
  queueService = undefined;
  tableService = undefined;
  clients.clear();
}
