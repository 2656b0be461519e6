import { IDENTITY_SETTINGS } from './settings';
import type { Kysely } from 'kysely';
import { defineContext } from '../../shared/context';
import { DATABASE } from '../../shared/sql/db';
import type { IdentityTables } from './db/tables';

/** What identity's code is handed per invocation: the shared part, and its view of the database. */
export const identityContext = defineContext('identity', IDENTITY_SETTINGS, ({ platform }) => ({
  /** The platform's database (one pool per platform, opened on first use), as identity's tables. */
  get db(): Kysely<IdentityTables> {
    return platform.get(DATABASE) as Kysely<IdentityTables>;
  },
}));

export type IdentityContext = ReturnType<typeof identityContext>;
