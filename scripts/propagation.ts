/**
 * How long the deployment scripts keep asking while Azure makes something just created known
 * where it is checked: a role assignment reaching Key Vault (403), a secret or an identity reaching
 * Resource Manager (404, PrincipalNotFound). Seconds at first, then every 30 s: about five
 * minutes in all, after which the refusal is reported as the fault it then is.
 */
export const PROPAGATION_RETRY_DELAYS_MS = [5_000, 10_000, 20_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000];
