/**
 * A secret's readers are granted by the command that writes it.
 *
 * Each app reads only its own Key Vault secrets: Key Vault Secrets User on each secret, never on the
 * vault. A role assignment names its scope, and on a first deployment no secret exists yet (the
 * postprovision hook and operators write them afterwards), so the Bicep cannot make these
 * assignments: Azure Resource Manager refuses a role assignment on a scope that does not exist.
 * Instead main.bicep outputs who reads what (KEY_VAULT_READERS: per app, its identity's
 * principal id and its secrets; azd keeps it in the environment), and whatever writes a secret
 * (KeyVaultSecrets.set: `npm run secrets`, the postprovision hook, `npm run stripe:webhook`) grants
 * that secret's readers right after writing it, here, through Resource Manager:
 *
 *   PUT {secret resource id}/providers/Microsoft.Authorization/roleAssignments/{name}?api-version=2022-04-01
 *
 * with the deployer's token (the credential the scripts already use; creating role assignments is
 * what `azd up` already needs: Owner, or Role Based Access Control Administrator). The name is a
 * UUID derived from the scope, the principal and the role, so a second run finds the same
 * assignment; one made earlier under another name (by an older Bicep) answers 409
 * RoleAssignmentExists, which is as good. Retried while Resource Manager does not know yet what was
 * just created: the secret written a moment ago (404) or an identity the provisioning just made
 * (400 PrincipalNotFound).
 */
import { createHash } from 'node:crypto';
import type { TokenCredential } from '@azure/identity';
import { PROPAGATION_RETRY_DELAYS_MS } from './propagation';

export const ROLE_ASSIGNMENTS_API_VERSION = '2022-04-01';
/** Key Vault Secrets User: read a secret's value. */
export const KEY_VAULT_SECRETS_USER = '4633458b-17de-408a-b874-0445c86b69e6';

/** One entry of main.bicep's KEY_VAULT_READERS output. */
export interface SecretReader {
  app: string;
  principalId: string;
  secrets: string[];
}

/** The azd environment values a grant needs (main.bicep outputs). */
export const SECRET_READER_INPUTS = ['AZURE_SUBSCRIPTION_ID', 'AZURE_RESOURCE_GROUP', 'AZURE_KEY_VAULT_NAME', 'KEY_VAULT_READERS'] as const;

/** A secret written through Key Vault's data plane and an identity made by the same provisioning both take a moment to be known to Resource Manager. */
export const GRANT_RETRY_DELAYS_MS = PROPAGATION_RETRY_DELAYS_MS;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** main.bicep's KEY_VAULT_READERS as azd hands it over (the array output as JSON). */
export function parseSecretReaders(value: string): SecretReader[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error("KEY_VAULT_READERS: not JSON (main.bicep's output, as `azd env get-values` gives it)");
  }
  if (!Array.isArray(parsed)) throw new Error('KEY_VAULT_READERS: not a list');
  return parsed.map((entry: unknown, i) => {
    const { app, principalId, secrets } = (entry ?? {}) as Partial<SecretReader>;
    if (
      typeof app !== 'string' ||
      typeof principalId !== 'string' ||
      !GUID.test(principalId) ||
      !Array.isArray(secrets) ||
      !secrets.every((s) => typeof s === 'string')
    )
      throw new Error(`KEY_VAULT_READERS[${i}]: not { app, principalId (a GUID), secrets: [names] }`);
    return { app, principalId, secrets };
  });
}

/** A name-based (version 5, SHA-1) UUID of `parts`: the same assignment always gets the same name. */
export function assignmentName(...parts: string[]): string {
  const hash = createHash('sha1').update(parts.join('|').toLowerCase()).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface GrantOptions {
  /** Azure Resource Manager (a local stand-in in tests). */
  armEndpoint?: string;
  retryDelaysMs?: number[];
  sleep?: (ms: number) => Promise<void>;
  /** Where retry notices go (stderr by default). */
  notice?: (line: string) => void;
}

/** Grants each secret's readers Key Vault Secrets User on that secret alone. */
export class SecretReaderGrants {
  private readonly armEndpoint: string;
  private readonly retryDelaysMs: number[];
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly notice: (line: string) => void;
  /** Assignments made (or found) by this process: each is asked for once. */
  private readonly done = new Set<string>();

  constructor(
    private readonly vault: { subscriptionId: string; resourceGroup: string; vaultName: string },
    private readonly readers: SecretReader[],
    private readonly credential: TokenCredential,
    options: GrantOptions = {},
  ) {
    this.armEndpoint = (options.armEndpoint ?? 'https://management.azure.com').replace(/\/$/, '');
    this.retryDelaysMs = options.retryDelaysMs ?? GRANT_RETRY_DELAYS_MS;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.notice = options.notice ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** The principal ids of the apps that read `secret` (deduplicated: with SINGLE_APP one app reads them all). */
  readersOf(secret: string): string[] {
    return [...new Set(this.readers.filter((reader) => reader.secrets.includes(secret)).map((reader) => reader.principalId))];
  }

  /** The secret's Azure resource id: the scope of its assignments. */
  secretId(secret: string): string {
    const { subscriptionId, resourceGroup, vaultName } = this.vault;
    return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.KeyVault/vaults/${vaultName}/secrets/${secret}`;
  }

  /** Grants every reader of `secret` (already written) read access to it; answers the principal ids granted. */
  async grant(secret: string): Promise<string[]> {
    const principals = this.readersOf(secret);
    for (const principalId of principals) {
      const scope = this.secretId(secret);
      const key = `${scope}|${principalId}`;
      if (this.done.has(key)) continue;
      await this.assign(scope, principalId, secret);
      this.done.add(key);
    }
    return principals;
  }

  private async assign(scope: string, principalId: string, secret: string): Promise<void> {
    const roleDefinitionId = `/subscriptions/${this.vault.subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/${KEY_VAULT_SECRETS_USER}`;
    const url = `${this.armEndpoint}${scope}/providers/Microsoft.Authorization/roleAssignments/${assignmentName(scope, principalId, KEY_VAULT_SECRETS_USER)}?api-version=${ROLE_ASSIGNMENTS_API_VERSION}`;
    const body = JSON.stringify({ properties: { roleDefinitionId, principalId, principalType: 'ServicePrincipal' } });
    for (let attempt = 0; ; attempt++) {
      const token = await this.credential.getToken(`${this.armEndpoint}/.default`);
      if (!token) throw new Error('no Entra ID token for Azure Resource Manager (sign in with `azd auth login` or `az login`)');
      const response = await fetch(url, { method: 'PUT', headers: { Authorization: `Bearer ${token.token}`, 'Content-Type': 'application/json' }, body });
      const text = await response.text();
      if (response.ok) return;
      const code = errorCode(text);
      // The same principal already holds the role on this secret, under another name.
      if (response.status === 409 && code === 'RoleAssignmentExists') return;
      const propagating = response.status === 404 || (response.status === 400 && code === 'PrincipalNotFound');
      const delay = this.retryDelaysMs[attempt];
      if (!propagating || delay === undefined) {
        throw new Error(
          `granting Key Vault Secrets User on secret ${secret} to ${principalId}: HTTP ${response.status} ${text.slice(0, 300)}` +
            (propagating ? ` (after ${attempt + 1} attempts)` : '') +
            '. The signed-in principal needs to create role assignments (Owner, or Role Based Access Control Administrator: what azd up needs too); run the command again once fixed, it grants what is missing.',
        );
      }
      this.notice(
        `Resource Manager answered ${response.status} ${code ?? ''} to the grant on secret ${secret}: ${response.status === 404 ? 'the secret just written' : 'the new identity'} is not known to it yet; retrying in ${Math.round(delay / 1000)} s (attempt ${attempt + 2} of ${this.retryDelaysMs.length + 1})`,
      );
      await this.sleep(delay);
    }
  }
}

function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/** The grants of the azd environment in `env` (`eval "$(azd env get-values)"`), or a message naming what is missing. */
export function secretReaderGrantsFromEnv(env: NodeJS.ProcessEnv, credential: TokenCredential, options: GrantOptions = {}): SecretReaderGrants {
  const missing = SECRET_READER_INPUTS.filter((name) => !env[name]?.trim());
  if (missing.length)
    throw new Error(
      `missing ${missing.join(', ')}: a secret's readers are granted by the command that writes it, from main.bicep's outputs; run eval "$(azd env get-values)" in this shell first (docs/deploy.md)`,
    );
  return new SecretReaderGrants(
    { subscriptionId: env.AZURE_SUBSCRIPTION_ID!.trim(), resourceGroup: env.AZURE_RESOURCE_GROUP!.trim(), vaultName: env.AZURE_KEY_VAULT_NAME!.trim() },
    parseSecretReaders(env.KEY_VAULT_READERS!),
    credential,
    options,
  );
}
