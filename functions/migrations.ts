import type { Migration } from 'kysely';
import type { MigrationName } from './migration-names';
import * as users from './identity/db/migrations/001_users';
import * as processingLog from './orchestrator/db/migrations/001_processing_log';
import * as orchestrator from './orchestrator/db/migrations/002_orchestrator';
import * as identity from './identity/db/migrations/003_identity';
import * as payment from './payment/db/migrations/004_payment';
import * as orchestratorAdminIndexes from './orchestrator/db/migrations/005_orchestrator_admin_indexes';
import * as paymentDecidingIndex from './payment/db/migrations/006_payment_deciding_index';
import * as planRequestTime from './identity/db/migrations/007_plan_request_time';
import * as reportQuota from './orchestrator/db/migrations/008_report_quota';
import * as orchestratorRollups from './orchestrator/db/migrations/009_orchestrator_rollups';
import * as orchestratorAdminActions from './orchestrator/db/migrations/010_orchestrator_admin_actions';
import * as paymentReviewDecisions from './payment/db/migrations/011_payment_review_decisions';
import * as paymentRefunds from './payment/db/migrations/012_payment_refunds';
import * as paymentDisputes from './payment/db/migrations/013_payment_disputes';
import * as planPeriod from './identity/db/migrations/014_plan_period';
import * as paymentSubscriptions from './payment/db/migrations/015_payment_subscriptions';
import * as reportUsage from './orchestrator/db/migrations/019_report_usage';
import * as reportIdempotency from './orchestrator/db/migrations/020_report_idempotency';
import * as reportShares from './orchestrator/db/migrations/021_report_shares';
import * as orchestratorNotifications from './orchestrator/db/migrations/022_orchestrator_notifications';

/**
 * The one migration history of the services' shared database, in order, for SQLite and Azure SQL
 * alike. Each service owns its steps (functions/<service>/db/migrations); the history itself is
 * the database's, so it is composed here, under the names databases already record: a name is
 * never changed once released (the first step, written before the services had their own folders,
 * made identity's users table and the orchestrator's log together, so both halves run under its
 * name). `sql/` holds its T-SQL (npm run sql:generate); the platform hands it to the database. Its names are
 * listed again, without the modules, in ./migration-names (which types this record).
 */
export const MIGRATIONS: Record<MigrationName, Migration> = {
  '001_platform': {
    async up(db) {
      await users.up(db);
      await processingLog.up(db);
    },
  },
  '002_orchestrator': orchestrator,
  '003_identity': identity,
  '004_payment': payment,
  '005_orchestrator_admin_indexes': orchestratorAdminIndexes,
  '006_payment_deciding_index': paymentDecidingIndex,
  '007_plan_request_time': planRequestTime,
  '008_report_quota': reportQuota,
  '009_orchestrator_rollups': orchestratorRollups,
  '010_orchestrator_admin_actions': orchestratorAdminActions,
  '011_payment_review_decisions': paymentReviewDecisions,
  '012_payment_refunds': paymentRefunds,
  '013_payment_disputes': paymentDisputes,
  '014_plan_period': planPeriod,
  '015_payment_subscriptions': paymentSubscriptions,
  '019_report_usage': reportUsage,
  '020_report_idempotency': reportIdempotency,
  '021_report_shares': reportShares,
  '022_orchestrator_notifications': orchestratorNotifications,
};
