import { createHmac, randomBytes } from 'node:crypto';

/** The header every delivery carries, as Stripe's Stripe-Signature: `t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
export const SIGNATURE_HEADER = 'Report-Signature';

/** A new endpoint secret: `whsec_` and 256 random bits (base64url). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** The hex HMAC-SHA256 of `<t>.<body>` with `secret` (the whole whsec_… string is the key). */
export const signPayload = (secret: string, timestamp: number, body: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');

/** The header's value: one v1 signature per secret in force (two during a rotation's overlap). */
export const signatureHeader = (secrets: readonly string[], timestamp: number, body: string): string =>
  [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signPayload(secret, timestamp, body)}`)].join(',');
