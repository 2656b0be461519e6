import type { Migration } from 'kysely';
import * as platform from './001_platform';
import * as orchestrator from './002_orchestrator';
import * as identity from './003_identity';
import * as payment from './004_payment';
import * as orchestratorAdminIndexes from './005_orchestrator_admin_indexes';
import * as paymentDecidingIndex from './006_payment_deciding_index';
import * as planRequestTime from './007_plan_request_time';
import * as reportQuota from './008_report_quota';
import * as orchestratorRollups from './009_orchestrator_rollups';
import * as orchestratorAdminActions from './010_orchestrator_admin_actions';

/** The one migration history, in order, for SQLite and Azure SQL alike. `sql/` holds its T-SQL (npm run sql:generate). */
export const MIGRATIONS: Record<string, Migration> = {
  '001_platform': platform,
  '002_orchestrator': orchestrator,
  '003_identity': identity,
  '004_payment': payment,
  '005_orchestrator_admin_indexes': orchestratorAdminIndexes,
  '006_payment_deciding_index': paymentDecidingIndex,
  '007_plan_request_time': planRequestTime,
  '008_report_quota': reportQuota,
  '009_orchestrator_rollups': orchestratorRollups,
  '010_orchestrator_admin_actions': orchestratorAdminActions,
};
