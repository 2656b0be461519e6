import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../functions/migrations';
import { entraSid, grantStatements } from '../../scripts/migrate';

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'migrate.js');

/** The environment of a deploying machine: no service secrets at all, only the database settings. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

describe('npm run migrate', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('applies the migration history without any service secret, and is idempotent', async () => {
    const first = await run(process.execPath, [SCRIPT], { env: envWith({ DATA_DIR: dataDir }) });
    expect(first.stdout).toContain(`migrating SQLite under ${dataDir}`);
    for (const name of Object.keys(MIGRATIONS)) expect(first.stdout).toContain(`${name}: Success`);

    const database = new Database(path.join(dataDir, 'platform.sqlite'), { readonly: true });
    const applied = database.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[];
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    database.close();
    expect(applied.map((row) => row.name)).toEqual(Object.keys(MIGRATIONS));
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['users', 'orchestrator_processing_log']));

    const second = await run(process.execPath, [SCRIPT], { env: envWith({ DATA_DIR: dataDir }) });
    expect(second.stdout).toContain('already up to date');
  });

  it('refuses --grant on SQLite and a half-given grant, exiting non-zero', async () => {
    await expect(
      run(process.execPath, [SCRIPT, '--grant', 'id-abc', '--client-id', '00112233-4455-6677-8899-aabbccddeeff'], { env: envWith({ DATA_DIR: dataDir }) }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--grant applies to Azure SQL only'),
    });
    await expect(run(process.execPath, [SCRIPT, '--grant', 'id-abc'], { env: envWith({ DATA_DIR: dataDir }) })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--grant and --client-id go together'),
    });
  });

  it('reports an invalid database setting instead of migrating', async () => {
    await expect(run(process.execPath, [SCRIPT], { env: envWith({ DATA_DIR: dataDir, SQL_AUTH: 'password' }) })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('SQL_AUTH: expected one of managed-identity, sql'),
    });
  });
});

describe('granting the managed identity', () => {
  it('computes the SID SQL Server stores for an Entra client id (uniqueidentifier byte order)', () => {
    expect(entraSid('00112233-4455-6677-8899-aabbccddeeff')).toBe('0x33221100554477668899AABBCCDDEEFF');
    expect(() => entraSid('not-a-guid')).toThrow('expected a GUID');
  });

  it('creates the user once and adds it to the read and write roles', () => {
    expect(grantStatements('id-abc123', '00112233-4455-6677-8899-aabbccddeeff')).toEqual([
      "IF NOT EXISTS (SELECT 1 FROM sys.database_principals WHERE name = N'id-abc123') CREATE USER [id-abc123] WITH SID = 0x33221100554477668899AABBCCDDEEFF, TYPE = E",
      'ALTER ROLE db_datareader ADD MEMBER [id-abc123]',
      'ALTER ROLE db_datawriter ADD MEMBER [id-abc123]',
    ]);
  });

  it('refuses names that could break out of the identifier', () => {
    expect(() => grantStatements("x']; DROP TABLE users; --", '00112233-4455-6677-8899-aabbccddeeff')).toThrow('is not a managed identity name');
  });
});
