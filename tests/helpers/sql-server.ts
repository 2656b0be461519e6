import { randomBytes } from 'node:crypto';
import { Connection, Request } from 'tedious';

/**
 * Runs the suites against SQL Server when SQL_SERVER is set (the SQL Server workflow,
 * .github/workflows/sql-server.yml: SQL_AUTH=sql, SQL_USER, SQL_PASSWORD, SQL_TRUST_SERVER_CERTIFICATE).
 * Each test host (and each e2e directory) gets a database of its own, created here and dropped
 * after, so test files stay as isolated as they are with their own SQLite file. Without SQL_SERVER
 * nothing happens and the hosts use SQLite.
 */
export interface IsolatedDatabase {
  /** Settings for the host: SQL_DATABASE of the new database (empty without SQL_SERVER). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

function onMaster(statement: string): Promise<void> {
  const env = process.env;
  return new Promise((resolve, reject) => {
    const connection = new Connection({
      server: env.SQL_SERVER!,
      authentication: { type: 'default', options: { userName: env.SQL_USER, password: env.SQL_PASSWORD } },
      options: {
        database: 'master',
        encrypt: true,
        trustServerCertificate: /^(true|1|yes)$/i.test(env.SQL_TRUST_SERVER_CERTIFICATE ?? ''),
        port: 1433,
        connectTimeout: 30_000,
      },
    });
    connection.connect((error) => {
      if (error) return reject(error);
      connection.execSql(
        new Request(statement, (requestError) => {
          connection.close();
          if (requestError) reject(requestError);
          else resolve();
        }),
      );
    });
  });
}

/** True when the suites run against SQL Server rather than SQLite. */
export const usingSqlServer = () => Boolean(process.env.SQL_SERVER?.trim());

export async function isolatedDatabase(): Promise<IsolatedDatabase> {
  if (!usingSqlServer()) return { env: {}, drop: async () => {} };
  if (process.env.SQL_AUTH !== 'sql' || !process.env.SQL_USER || !process.env.SQL_PASSWORD) {
    throw new Error('tests against SQL_SERVER need SQL_AUTH=sql, SQL_USER and SQL_PASSWORD (see .github/workflows/sql-server.yml)');
  }
  const name = `test_${randomBytes(8).toString('hex')}`;
  await onMaster(`CREATE DATABASE [${name}] COLLATE SQL_Latin1_General_CP1_CI_AS`);
  return {
    env: { SQL_DATABASE: name },
    drop: () => onMaster(`ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${name}]`),
  };
}
