import { ORCHESTRATOR_SETTINGS } from './settings';
import type { Kysely } from 'kysely';
import { defineContext } from '../../shared/context';
import { DATABASE } from '../../shared/sql/db';
import type { OrchestratorTables } from './db/tables';

/** What the orchestrator's code is handed per invocation: the shared part, and its view of the database. */
export const orchestratorContext = defineContext('orchestrator', ORCHESTRATOR_SETTINGS, ({ platform }) => ({
  /** The platform's database (one pool per platform, opened on first use), as the orchestrator's tables. */
  get db(): Kysely<OrchestratorTables> {
    return platform.get(DATABASE) as Kysely<OrchestratorTables>;
  },
}));

export type OrchestratorContext = ReturnType<typeof orchestratorContext>;
