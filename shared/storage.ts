import { TableClient, TableServiceClient } from '@azure/data-tables';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { azureCredential } from './azure-credential';
import { config, ConfigError } from './config';

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
const ensured = new Map<string, Promise<unknown>>();

/** Creates a container, queue or table once per process; concurrent callers share the one request. */
function ensureOnce(key: string, create: () => Promise<unknown>): Promise<unknown> {
  let pending = ensured.get(key);
  if (!pending) {
    pending = create().catch((error) => {
      ensured.delete(key);
      throw error;
    });
    ensured.set(key, pending);
  }
  return pending;
}

export function blobServiceClient(): BlobServiceClient {
  if (!blobService) {
    const { connectionString, name } = account();
    blobService = connectionString
      ? BlobServiceClient.fromConnectionString(connectionString)
      : new BlobServiceClient(`https://${name}.blob.core.windows.net`, azureCredential());
  }
  return blobService;
}

export function queueServiceClient(): QueueServiceClient {
  if (!queueService) {
    const { connectionString, name } = account();
    queueService = connectionString
      ? QueueServiceClient.fromConnectionString(connectionString)
      : new QueueServiceClient(`https://${name}.queue.core.windows.net`, azureCredential());
  }
  return queueService;
}

export function tableServiceClient(): TableServiceClient {
  if (!tableService) {
    const { connectionString, name } = account();
    tableService = connectionString
      ? TableServiceClient.fromConnectionString(connectionString, { allowInsecureConnection: true })
      : new TableServiceClient(`https://${name}.table.core.windows.net`, azureCredential());
  }
  return tableService;
}

export async function container(name: string): Promise<ContainerClient> {
  const client = blobServiceClient().getContainerClient(name);
  await ensureOnce(`blob:${name}`, () => client.createIfNotExists());
  return client;
}

export async function queue(name: string): Promise<QueueClient> {
  const client = queueServiceClient().getQueueClient(name);
  await ensureOnce(`queue:${name}`, () => client.createIfNotExists());
  return client;
}

export async function table(name: string): Promise<TableClient> {
  const { connectionString, name: accountName } = account();
  const client = connectionString
    ? TableClient.fromConnectionString(connectionString, name, { allowInsecureConnection: true })
    : new TableClient(`https://${accountName}.table.core.windows.net`, name, azureCredential());
  await ensureOnce(`table:${name}`, () => tableServiceClient().createTable(name));
  return client;
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
  ensured.clear();
}
