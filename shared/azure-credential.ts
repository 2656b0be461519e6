import type { TokenCredential } from '@azure/identity';
import { currentPlatform, member } from './platform';

/**
 * The managed identity (user-assigned when AZURE_CLIENT_ID is set) used for Azure SQL, Storage and
 * Key Vault: one per platform, made from its settings on first use.
 */
export const azureCredential = (): TokenCredential => currentPlatform().get(CREDENTIAL);

export const CREDENTIAL = member('managed identity credential', (platform): TokenCredential => {
  const { DefaultAzureCredential } = require('@azure/identity') as typeof import('@azure/identity');
  return new DefaultAzureCredential({ managedIdentityClientId: platform.config.AZURE_CLIENT_ID });
});
