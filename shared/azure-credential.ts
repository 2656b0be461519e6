import type { TokenCredential } from '@azure/identity';
import { config } from './config';

let credential: TokenCredential | undefined;

/** The managed identity (user-assigned when AZURE_CLIENT_ID is set) used for Azure SQL, Storage and Key Vault. */
export function azureCredential(): TokenCredential {
  if (!credential) {
    const { DefaultAzureCredential } = require('@azure/identity') as typeof import('@azure/identity');
    credential = new DefaultAzureCredential({ managedIdentityClientId: config().AZURE_CLIENT_ID });
  }
  return credential;
}
