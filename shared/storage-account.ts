import { ConfigError, type Config } from './config';

/**
 * Which storage account holds the platform's data, and how it is reached, read from the settings
 * alone: loading this loads no HTTP client (the entry point names the queue trigger's connection
 * with it; shared/storage-rest.ts sends the requests).
 */
export type StorageService = 'blob' | 'queue' | 'table';

export interface StorageAccount {
  name: string;
  endpoints: Record<StorageService, URL>;
  key?: Buffer;
  sas?: string;
}

const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const DEV_PORTS: Record<StorageService, number> = { blob: 10000, queue: 10001, table: 10002 };

/**
 * The platform's data account (chart cache, reports, the report queue, the tables), as settings of
 * one connection: PLATFORM_STORAGE (a connection string) or PLATFORM_STORAGE__accountName (the
 * managed identity), the form the app settings have in Azure, where each app's AzureWebJobsStorage
 * is its own host account. When neither is set (locally: npm start, the tests, Core Tools with
 * Azurite), the account of AzureWebJobsStorage, in the same two forms: one account holds both.
 * `connection` is the setting's name, which the Functions host reads for the queue trigger.
 */
export function dataStorage(cfg: Config): { connection: 'PLATFORM_STORAGE' | 'AzureWebJobsStorage'; connectionString?: string; name?: string } {
  const own = cfg.PLATFORM_STORAGE?.trim();
  if (own) return { connection: 'PLATFORM_STORAGE', connectionString: own };
  // queueServiceUri alone (the host's form) names the account too: its host's first label.
  const fromUri = cfg.PLATFORM_STORAGE__queueServiceUri ? new URL(cfg.PLATFORM_STORAGE__queueServiceUri).hostname.split('.')[0] : undefined;
  if (cfg.PLATFORM_STORAGE__accountName || fromUri) return { connection: 'PLATFORM_STORAGE', name: cfg.PLATFORM_STORAGE__accountName || fromUri };
  const host = cfg.AzureWebJobsStorage?.trim();
  if (host) return { connection: 'AzureWebJobsStorage', connectionString: host };
  if (cfg.AzureWebJobsStorage__accountName) return { connection: 'AzureWebJobsStorage', name: cfg.AzureWebJobsStorage__accountName };
  throw new ConfigError([
    'PLATFORM_STORAGE: missing, and no AzureWebJobsStorage to fall back on (set a connection string, or PLATFORM_STORAGE__accountName for managed identity)',
  ]);
}

/**
 * The name of the data account's connection, for the Functions host (the report queue trigger's
 * `connection`): PLATFORM_STORAGE when any of its settings is set, else AzureWebJobsStorage. Never
 * throws: a missing account is reported when storage is first used, not at registration.
 */
export function dataStorageConnection(cfg: Config): 'PLATFORM_STORAGE' | 'AzureWebJobsStorage' {
  return cfg.PLATFORM_STORAGE?.trim() || cfg.PLATFORM_STORAGE__accountName || cfg.PLATFORM_STORAGE__queueServiceUri
    ? 'PLATFORM_STORAGE'
    : 'AzureWebJobsStorage';
}

/** The platform's data account (dataStorage; throws ConfigError when no setting names one). */
export function storageAccount(cfg: Config): StorageAccount {
  const { connectionString: connection, name: accountName } = dataStorage(cfg);
  if (!connection) {
    const name = accountName!;
    return { name, endpoints: endpointsOf(name, 'https', 'core.windows.net') };
  }
  if (/^UseDevelopmentStorage=true;?$/i.test(connection)) {
    const endpoints = Object.fromEntries(
      (Object.keys(DEV_PORTS) as StorageService[]).map((service) => [service, new URL(`http://127.0.0.1:${DEV_PORTS[service]}/${DEV_ACCOUNT}`)]),
    ) as Record<StorageService, URL>;
    return { name: DEV_ACCOUNT, endpoints, key: Buffer.from(DEV_KEY, 'base64') };
  }
  const parts = new Map<string, string>();
  for (const part of connection.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) parts.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  const explicit = (service: StorageService) => parts.get(`${service}endpoint`);
  const name = parts.get('accountname') ?? nameOf(new URL(explicit('blob') ?? explicit('table') ?? explicit('queue') ?? 'http://unknown'));
  const defaults = endpointsOf(name, parts.get('defaultendpointsprotocol') ?? 'https', parts.get('endpointsuffix') ?? 'core.windows.net');
  const endpoints = Object.fromEntries(
    (Object.keys(defaults) as StorageService[]).map((service) => [service, explicit(service) ? new URL(explicit(service)!) : defaults[service]]),
  ) as Record<StorageService, URL>;
  const key = parts.get('accountkey');
  const sas = parts.get('sharedaccesssignature')?.replace(/^\?/, '');
  return { name, endpoints, ...(key ? { key: Buffer.from(key, 'base64') } : {}), ...(sas ? { sas } : {}) };
}

/** An account's name from its endpoint: the host's first label (Azure), or the path's first segment (Azurite's path-style URLs). */
const nameOf = (endpoint: URL) =>
  (/^\d+\.\d+\.\d+\.\d+$|^localhost$/.test(endpoint.hostname) ? endpoint.pathname.split('/')[1] : endpoint.hostname.split('.')[0]) ?? '';

function endpointsOf(name: string, protocol: string, suffix: string): Record<StorageService, URL> {
  return {
    blob: new URL(`${protocol}://${name}.blob.${suffix}`),
    queue: new URL(`${protocol}://${name}.queue.${suffix}`),
    table: new URL(`${protocol}://${name}.table.${suffix}`),
  };
}
