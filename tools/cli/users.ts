import { parseArgs } from 'node:util';
import { SETTINGS } from '../../functions/settings';
import { useProcessSettings } from '../../shared/config';
import { createLogger } from '../../shared/logging';
import { currentPlatform } from '../../shared/platform';
import { closeDb, migrateToLatest } from '../../shared/sql/db';
import { MIGRATIONS } from '../../functions/migrations';
import { ensureUserWithRole } from '../../functions/identity/bootstrap';
import { identityContext } from '../../functions/identity/context';
import { applyLocalSettings } from '../../shared/config/local-settings';

const USAGE = 'usage: npm run users -- create --email <address> [--role user|admin|super_admin]';

/**
 * `npm run users -- create --email a@b.c --role admin`: creates the user with that role, or gives an
 * existing user the role (and reactivates them). Works on the configured database (SQLite under
 * DATA_DIR locally, Azure SQL when SQL_SERVER is set); audited as actor system/cli.
 */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { email: { type: 'string' }, role: { type: 'string', default: 'user' } } });
  if (positionals[0] !== 'create' || !values.email || !/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(values.email)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  applyLocalSettings();
  useProcessSettings(process.env, { settings: SETTINGS, requireFor: ['identity'], migrations: () => MIGRATIONS });
  try {
    await migrateToLatest();
    // identity's context on the command's platform (the one useProcessSettings made), as a request would get it.
    const ctx = identityContext(currentPlatform(), createLogger({ service: 'identity', component: 'cli' }));
    const { user, outcome } = await ensureUserWithRole(ctx, values.email, values.role!, { type: 'system', id: 'cli' });
    process.stdout.write(`${JSON.stringify({ outcome, id: user.id, email: user.email, role: user.role, status: user.status })}\n`);
  } finally {
    await closeDb();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
