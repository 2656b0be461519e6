import type { ColumnType } from 'kysely';
import type { IdentityTables } from '../../functions/identity/tables';
import type { OrchestratorTables } from '../../functions/orchestrator/tables';
import type { PaymentTables } from '../../functions/payment/tables';

/** Timestamps: written as ISO 8601 strings, read as strings (SQLite) or Date (Azure SQL); normalise with toIso. */
export type Timestamp = ColumnType<string | Date, string | undefined, string>;

/**
 * The whole database, as the one migration history (migrations/) builds it: every service's
 * tables, each defined in its service's tables.ts (`functions/<service>/tables.ts`). `db()` is
 * typed with it; identity and payment work through their own view (identityDb(), paymentDb()).
 * The imports are type-only: nothing of a service is loaded here.
 */
export type PlatformTables = IdentityTables & PaymentTables & OrchestratorTables;
