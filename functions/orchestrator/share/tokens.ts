import { createHash, randomBytes } from 'node:crypto';

/** A share token: 256 random bits, base64url (43 characters). Shown once, when the link is made; SQL keeps only its hash. */
export const newShareToken = (): string => randomBytes(32).toString('base64url');

/** What SQL keeps of a token: its SHA-256, hex. A token is looked up by this hash (unique). */
export const shareTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** How the owner names a link (list, revoke): not a secret, and nothing the page can be opened with. */
export const newShareId = (): string => `shr_${randomBytes(12).toString('hex')}`;

/** What a token looks like: anything else is answered as an unknown link without a database read. */
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
