/** Writes sql/<migration>.sql: the T-SQL of the one migration history, for review and for applying to Azure SQL by hand. */
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS } from '../functions/migrations';
import { migrationsAsTsql } from '../shared/sql/tsql';

const SQL_DIR = path.resolve(__dirname, '..', '..', 'sql');

async function main(): Promise<void> {
  for (const { name, sql } of await migrationsAsTsql(MIGRATIONS)) {
    const file = path.join(SQL_DIR, `${name}.sql`);
    fs.writeFileSync(file, sql);
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
