/**
 * npm run migrate [-- --grant <identity name> --client-id <guid>]
 *
 * Applies the one migration history (shared/sql/migrations) to the configured database: Azure SQL
 * when SQL_SERVER is set (Entra ID: the managed identity in Azure, or whoever `az login`/`azd auth
 * login` signed in as on a deploying machine), otherwise SQLite under DATA_DIR. Only the SQL
 * settings are needed: service secrets are not required to migrate.
 *
 * With --grant (Azure SQL, run as the server's Entra admin) it also makes the Function Apps'
 * managed identity a database user with read and write rights. The user is created from the
 * identity's client id (WITH SID ... TYPE = E), so the server needs no Microsoft Graph permissions.
 */
import { SETTINGS } from '../functions/settings';
import { parseArgs } from 'node:util';
import { useProcessSettings } from '../shared/config';
import { closeDb, db, migrateToLatest } from '../shared/sql/db';
import { MIGRATIONS } from '../functions/migrations';
import { sql } from '../shared/sql/dialect';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PRINCIPAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const APP_DATABASE_ROLES = ['db_datareader', 'db_datawriter'] as const;

/** The SID SQL Server stores for an Entra principal: its client id as uniqueidentifier bytes (first three groups little-endian). */
export function entraSid(clientId: string): string {
  if (!GUID.test(clientId)) throw new Error(`--client-id: expected a GUID, got "${clientId}"`);
  const hex = clientId.replace(/-/g, '');
  const swap = (part: string) => part.match(/../g)!.reverse().join('');
  return `0x${(swap(hex.slice(0, 8)) + swap(hex.slice(8, 12)) + swap(hex.slice(12, 16)) + hex.slice(16)).toUpperCase()}`;
}

/** Idempotent T-SQL making the identity a database user with APP_DATABASE_ROLES. */
export function grantStatements(principalName: string, clientId: string): string[] {
  if (!PRINCIPAL_NAME.test(principalName)) throw new Error(`--grant: "${principalName}" is not a managed identity name`);
  const user = `[${principalName}]`;
  return [
    `IF NOT EXISTS (SELECT 1 FROM sys.database_principals WHERE name = N'${principalName}') CREATE USER ${user} WITH SID = ${entraSid(clientId)}, TYPE = E`,
    ...APP_DATABASE_ROLES.map((role) => `ALTER ROLE ${role} ADD MEMBER ${user}`),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { grant: { type: 'string' }, 'client-id': { type: 'string' } } });
  if (Boolean(values.grant) !== Boolean(values['client-id'])) throw new Error('--grant and --client-id go together');
  const cfg = useProcessSettings(process.env, { settings: SETTINGS, requireFor: [], migrations: () => MIGRATIONS });
  if (values.grant && !cfg.SQL_SERVER) throw new Error('--grant applies to Azure SQL only (set SQL_SERVER and SQL_DATABASE)');
  const target = cfg.SQL_SERVER ? `Azure SQL ${cfg.SQL_SERVER}/${cfg.SQL_DATABASE}` : `SQLite under ${cfg.DATA_DIR}`;
  process.stdout.write(`migrating ${target}\n`);
  const { results = [] } = await migrateToLatest();
  for (const result of results) process.stdout.write(`  ${result.migrationName}: ${result.status}\n`);
  if (!results.length) process.stdout.write('  already up to date\n');
  if (values.grant) {
    for (const statement of grantStatements(values.grant, values['client-id']!)) await sql.raw(statement).execute(db());
    process.stdout.write(`  ${values.grant} is a database user with ${APP_DATABASE_ROLES.join(', ')}\n`);
  }
}

if (require.main === module) {
  main()
    .catch((error) => {
      process.stderr.write(`migrate failed: ${(error as Error).message}\n`);
      process.exitCode = 1;
    })
    .finally(() => closeDb());
}
