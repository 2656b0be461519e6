import { workerData } from 'node:worker_threads';

/**
 * A worker thread beside each process's SQLite connection that copies the write-ahead log back
 * into the database with PASSIVE checkpoints, which block neither readers nor writers. Left to the
 * request thread, that copy and its fsync stalled a write route for about 10 ms every 150 or so
 * commits. See `createSqlite` for the part the request thread keeps.
 */
const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const Database = require('better-sqlite3') as typeof import('better-sqlite3');

// The thread starts a little after its connection opened (createSqlite): a database removed in
// between (a test's temporary directory) leaves nothing to checkpoint, and the thread ends quietly
// rather than failing its host. It never creates the file: only the connection that owns it does.
function open(): import('better-sqlite3').Database | undefined {
  try {
    return new Database(file, { fileMustExist: true });
  } catch {
    return undefined;
  }
}

const database = open();
if (database) {
  database.pragma('busy_timeout = 1000');
  setInterval(() => {
    try {
      database.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or briefly locked: the next round copies what this one could not.
    }
  }, intervalMs);
}
