import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Dialect, Driver, Kysely, Migration, MigrationResultSet, SqliteDatabase } from 'kysely';
import { azureCredential } from '../azure-credential';
import { config, type Config } from '../config';
import { currentPlatform, member, type Platform } from '../platform';
import { sqlDependencyLogger, type QueryLogEvent } from '../telemetry';
import { vendored } from '../vendor';
import type { AnyKysely } from './dialect';

/** Kysely, loaded with the first handle made: a health ping on SQLite needs none (pingSqlite). */
const kysely = () => vendored('kysely');

export function sqliteFile(cfg: Config = config()): string {
  return path.resolve(cfg.DATA_DIR, 'platform.sqlite');
}

/** How often the checkpointer thread folds the write-ahead log back into the database file. */
const CHECKPOINT_INTERVAL_MS = 250;
/** 16 MB of 4 KB pages: four times the default, so the request thread checkpoints a quarter as often. */
export const MAX_LOG_FRAMES = 4_096;

type Migrations = Record<string, Migration>;

/** What the platform's database did: opened (a pool or a file, made on first use), or ran one query. */
export type SqlActivity = { kind: 'open' } | { kind: 'query'; sql: string; failed: boolean };

/**
 * Who is told of everything the platform's database does (tests count it: an idle hour of timers
 * and probes must run no query at all, so a serverless database can pause). Empty in production.
 */
const SQL_WATCHERS = member('sql watchers', () => new Set<(activity: SqlActivity) => void>());

/** Calls `watcher` with every database open and every query of `platform` until the returned function is called. */
export function watchSql(platform: Platform, watcher: (activity: SqlActivity) => void): () => void {
  const watchers = platform.get(SQL_WATCHERS);
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

/** Kysely's log hook: the telemetry dependency (when Application Insights is on) and the platform's watchers. */
function queryLog(platform: Platform, telemetry: ((event: QueryLogEvent) => void) | undefined): (event: QueryLogEvent) => void {
  const watchers = platform.get(SQL_WATCHERS);
  return (event) => {
    telemetry?.(event);
    for (const watcher of watchers) watcher({ kind: 'query', sql: event.query.sql, failed: event.level === 'error' });
  };
}

/** The platform's SQLite file, open: its statement cache (whose `close` the connection keeps), its query log, and how to close it. */
interface SqliteConnection {
  /** Prepares through the statement cache; closing it releases the platform's connection. */
  readonly database: SqliteDatabase;
  readonly log: (event: QueryLogEvent) => void;
  /** Found to have recorded every migration (pingSqlite asks once). */
  upToDate: boolean;
  close(): void;
}

function openSqlite(platform: Platform, cfg: Config): SqliteConnection {
  // Loaded lazily: SQLite is for laptops and tests, and the native module is a development
  // dependency that the deployment package leaves out (scripts/deploy-package.ts).
  let Database: typeof import('better-sqlite3');
  try {
    Database = require('better-sqlite3') as typeof import('better-sqlite3');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error('SQL_SERVER is not set, and SQLite (better-sqlite3, a development dependency) is not installed: in Azure set SQL_SERVER and SQL_DATABASE; on a laptop run npm ci');
  }
  for (const watcher of platform.get(SQL_WATCHERS)) watcher({ kind: 'open' });
  const file = sqliteFile(cfg);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new Database(file);
  useWal(database);
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // The checkpointer thread copies the log back as it grows. A PASSIVE checkpoint cannot finish
  // while writes go on, and the log starts over only after one has, so under constant writes the
  // log would grow without end: past this many frames the request thread checkpoints itself (little
  // is left to copy by then) and the next write starts the log over, cut back to this size.
  database.pragma(`wal_autocheckpoint = ${MAX_LOG_FRAMES}`);
  database.pragma(`journal_size_limit = ${MAX_LOG_FRAMES * 4096}`);
  // The thread starts when its first checkpoint is due, not with the connection: starting a worker
  // thread costs the request thread about 2 ms (and the machine a second Node instance), which a
  // cold start's first request would otherwise wait for.
  let checkpointer: Worker | undefined;
  const starting = setTimeout(() => {
    const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads'); // with the thread, not the connection (about 1 ms)
    checkpointer = new Worker(path.join(__dirname, 'checkpointer.js'), { workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS } });
    checkpointer.unref();
  }, CHECKPOINT_INTERVAL_MS).unref();
  return {
    // Kysely closes the database it is handed when destroyed: that releases the platform's
    // connection (closing the file), and the next use, Kysely's or a ping's, opens it again.
    database: withStatementCache(database, () => void platform.release(SQLITE)),
    log: queryLog(platform, sqlDependencyLogger('sqlite', 'localhost', path.basename(file))),
    upToDate: false,
    close() {
      clearTimeout(starting);
      void checkpointer?.terminate();
      database.close();
    },
  };
}

/**
 * Switches the file to write-ahead logging. Two processes opening a new file at once race to switch
 * it, and the loser is told SQLITE_BUSY at once (the switch needs the file alone, and SQLite does
 * not wait for that): it tries again every 20 ms, for up to a second, by when the other has
 * switched it (a test's two hosts on one new database failed so, 26 times in 80).
 */
function useWal(database: import('better-sqlite3').Database): void {
  for (let attempt = 1; ; attempt++) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 50) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // a synchronous pause: the connection is opened synchronously
    }
  }
}

/** The platform's SQLite connection, opened on first use (by Kysely's handle or a health ping) and closed with the platform. */
const SQLITE = member('sqlite connection', (platform) => openSqlite(platform, platform.config), (connection) => connection.close());

function createSqlite(platform: Platform, migrations: () => Migrations, names: readonly string[] | undefined, migrated: (result: MigrationResultSet) => void): AnyKysely {
  const connection = platform.get(SQLITE);
  return new (kysely().Kysely)<unknown>({ dialect: selfMigratingDialect(connection.database, migrations, names, migrated), log: connection.log });
}

/**
 * Runs `select 1` on the platform's SQLite connection alone, for the health check: on a database
 * that has recorded every migration (every start but the first), the query builder (Kysely, about
 * 9 ms of a cold start's first health call) is not loaded for it. A database that has not goes
 * through Kysely, whose first query applies the history, as any first use does: health brought a
 * new database up to date before, and another process sharing the file (a test's two hosts) must
 * not find it half made. The query log hears of the ping as of any statement (telemetry, the SQL
 * watchers).
 */
export async function pingSqlite(platform: Platform): Promise<void> {
  const connection = platform.get(SQLITE);
  const names = platform.migrationNames;
  if (!connection.upToDate && !(names && recordsExactly(connection.database, names))) {
    const { sql } = require('./dialect') as typeof import('./dialect');
    await sql`select 1 as ok`.execute(platform.get(DATABASE));
    return;
  }
  connection.upToDate = true;
  const query = { sql: 'select 1 as ok' };
  const started = performance.now();
  try {
    connection.database.prepare(query.sql).all([]);
  } catch (error) {
    connection.log({ level: 'error', query, queryDurationMillis: performance.now() - started, error });
    throw error;
  }
  connection.log({ level: 'query', query, queryDurationMillis: performance.now() - started });
}

/** A Kysely handle over a SQLite database opened by the caller (migrations, tests and benches that open their own file). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's idiom for a database of any tables
export function sqliteKysely<DB = any>(database: SqliteDatabase): Kysely<DB> {
  return new (kysely().Kysely)<DB>({ dialect: new (kysely().SqliteDialect)({ database }) });
}

/**
 * The embedded database brings itself up to date on first use, in every host (npm start, func
 * start, the CLIs): Kysely initialises a driver once, before its first query, and this driver's
 * initialisation applies the migration history. Azure SQL keeps migrations as a deployment step
 * (npm run migrate), run once by whoever deploys rather than by every scaled-out instance.
 */
function selfMigratingDialect(database: SqliteDatabase, migrations: () => Migrations, names: readonly string[] | undefined, migrated: (result: MigrationResultSet) => void): Dialect {
  const dialect = new (kysely().SqliteDialect)({ database });
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = (): Driver => {
    const driver = createDriver();
    const init = driver.init.bind(driver);
    driver.init = async () => {
      await init();
      // Already up to date (every open but the first): nothing to load, nothing to apply.
      if (names && recordsExactly(database, names)) return migrated({ results: [] });
      migrated(await migrateExclusively(database, migrations()));
    };
    return driver;
  };
  return dialect;
}

/**
 * Applies the history to a SQLite file that another process may be opening at the same moment (a
 * test's two hosts, `npm start` beside a script): Kysely's migrator takes no lock on SQLite and
 * runs its steps outside any transaction, so two processes reading "nothing applied" both created
 * the first table and one failed. The whole run is one IMMEDIATE transaction: the second process
 * waits for the first (the connection's busy timeout), then finds every step recorded. SQLite's
 * schema changes are transactional, and no migration opens a transaction of its own.
 */
async function migrateExclusively(database: SqliteDatabase, migrations: Migrations): Promise<MigrationResultSet> {
  database.prepare('begin immediate').run([]);
  try {
    // A second Kysely over the same connection, never destroyed (that would close the database).
    const result = await runMigrations(sqliteKysely(database), migrations);
    database.prepare('commit').run([]);
    return result;
  } catch (error) {
    database.prepare('rollback').run([]);
    throw error;
  }
}

/**
 * Whether the database has recorded exactly the migrations `names` (Kysely's `kysely_migration`
 * table), so that opening it need not load the migration history nor run Kysely's migrator (which
 * reads every table's columns first): about 8 ms of a cold start. Anything else (no table yet, a
 * step missing, a name the history does not hold) is left to the migrator, which applies or refuses
 * as before.
 */
export function recordsExactly(database: SqliteDatabase, names: readonly string[]): boolean {
  let recorded: string[];
  try {
    recorded = (database.prepare('select name from kysely_migration').all([]) as { name: string }[]).map((row) => row.name).sort();
  } catch {
    return false; // no such table: a new database
  }
  const expected = [...names].sort();
  return recorded.length === expected.length && recorded.every((name, i) => name === expected[i]);
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every statement again on every call; preparing is a large share
 * of a small query's cost. Repositories issue a few hundred distinct statements, so a bounded
 * cache keyed by SQL text reuses them (a statement still iterating is never handed out twice).
 */
function withStatementCache(database: import('better-sqlite3').Database, close: () => void): SqliteDatabase {
  const cache = new Map<string, import('better-sqlite3').Statement>();
  return {
    close,
    prepare(sql: string) {
      const cached = cache.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = database.prepare(sql);
      if (!cached) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

function createMssql(platform: Platform, cfg: Config): AnyKysely {
  const tedious = require('tedious') as typeof import('tedious');
  const tarn = require('tarn') as typeof import('tarn');
  const authentication =
    cfg.SQL_AUTH === 'sql'
      ? { type: 'default' as const, options: { userName: cfg.SQL_USER, password: cfg.SQL_PASSWORD } }
      : {
          type: 'token-credential' as const,
          options: { credential: azureCredential() },
        };
  return new (kysely().Kysely)<unknown>({
    log: queryLog(platform, sqlDependencyLogger('mssql', cfg.SQL_SERVER!, cfg.SQL_DATABASE ?? '')),
    dialect: new (kysely().MssqlDialect)({
      tarn: { ...tarn, options: { min: 0, max: cfg.SQL_POOL_MAX, idleTimeoutMillis: 30_000 } },
      tedious: {
        ...tedious,
        connectionFactory: () =>
          new tedious.Connection({
            server: cfg.SQL_SERVER!,
            authentication,
            options: { database: cfg.SQL_DATABASE, encrypt: true, port: 1433, trustServerCertificate: cfg.SQL_TRUST_SERVER_CERTIFICATE, connectTimeout: 30_000 },
          }),
      },
    }),
  });
}

/** The platform's database: one pool (or SQLite connection) per platform, made on first use, closed with it. */
export function db(): AnyKysely {
  return currentPlatform().get(DATABASE);
}

export const DATABASE = member(
  'database',
  (platform): AnyKysely => {
    if (!platform.config.SQL_SERVER) {
      return createSqlite(platform, () => platform.migrations, platform.migrationNames, (result) => (platform.get(SELF_MIGRATION).result = result));
    }
    for (const watcher of platform.get(SQL_WATCHERS)) watcher({ kind: 'open' });
    return createMssql(platform, platform.config);
  },
  (database) => database.destroy(),
);

/** Closes the platform's database now (a command's last step; a dev host's platform closes it on stop). */
export async function closeDb(): Promise<void> {
  await currentPlatform().release(DATABASE);
  await currentPlatform().release(SQLITE);
}

/** What the embedded database's own migration applied, until someone asks (npm run migrate prints it). */
const SELF_MIGRATION = member('embedded migration report', () => ({}) as { result?: MigrationResultSet });

/**
 * Applies the migration history: to `database` when given, else to the configured database. The
 * embedded SQLite database migrates itself on first use, so for it this reports what that applied
 * (nothing, when it was already up to date or already reported).
 */
export async function migrateToLatest(database?: AnyKysely, migrations?: Migrations): Promise<MigrationResultSet> {
  if (database || config().SQL_SERVER) return runMigrations(database ?? db(), migrations ?? currentPlatform().migrations);
  const { sql } = require('./dialect') as typeof import('./dialect');
  await sql`select 1 as ok`.execute(db());
  const held = currentPlatform().get(SELF_MIGRATION);
  const result = held.result ?? { results: [] };
  held.result = { results: [] };
  return result;
}

async function runMigrations(database: AnyKysely, migrations: Migrations): Promise<MigrationResultSet> {
  // Names compare by code unit ('001_x' < '002_y'), the order localeCompare (Kysely's default) gives
  // them too; its first call builds an ICU collator, about 5 ms of every cold start on SQLite.
  const migrator = new (kysely().Migrator)({
    db: database,
    provider: { getMigrations: async () => migrations },
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
