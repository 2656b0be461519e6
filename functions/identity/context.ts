import { IDENTITY_SETTINGS } from './settings';
import type { Kysely } from 'kysely';
import { SIGNING_KEYS } from '../../shared/auth/access-token';
import type { SigningKey } from '../../shared/auth/keys';
import { defineContext } from '../../shared/context';
import { opsFor } from '../../shared/http/route';
import { DATABASE } from '../../shared/sql/db';
import type { IdentityTables } from './db/tables';
import { mailerOn, type Mailer } from '../../shared/mail/mailer';

/**
 * What identity's code is handed per invocation: the shared part (settings, clock, logger), its
 * view of the database, the keys it signs access tokens with and its mailer. Each is a getter: a
 * request that signs nothing parses no key, one that mails nothing loads no mail library.
 * Domain code takes this (or the part it needs) as its first parameter; this file imports no domain
 * file but the mailer, so every domain file can import its type without an import circle.
 */
export const identityContext = defineContext('identity', IDENTITY_SETTINGS, ({ platform }) => ({
  /** The platform's database (one pool per platform, opened on first use), as identity's tables. */
  get db(): Kysely<IdentityTables> {
    return platform.get(DATABASE) as Kysely<IdentityTables>;
  },
  /** JWT_SIGNING_KEYS, parsed once per platform (a failed parse is tried again): the first one signs, all are published. */
  get signingKeys(): Promise<SigningKey[]> {
    return platform.get(SIGNING_KEYS);
  },
  /** How identity sends email under the platform's settings: SMTP, Azure Communication Services, or the local outbox. */
  get mailer(): Mailer {
    return mailerOn(platform);
  },
}));

export type IdentityContext = ReturnType<typeof identityContext>;

/** identity's operations: each handler is handed identity's context (with the request's id and logger) as `ctx`. */
export const op = opsFor<IdentityContext>();
