import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from 'better-sqlite3';
import { MAX_LOG_FRAMES } from '../../shared/sql/db';

/**
 * The least a plan update can cost on this machine, to read the platform's figures against: a bare
 * `node:http` server that parses the same body and answers the same JSON, optionally running the
 * same three statements in one transaction (read the plan, write it, append the audit entry) on
 * the dev host's own SQLite file with better-sqlite3 directly. No routing, no token check, no
 * validation, no query builder: none of the platform's code runs.
 */
export interface FloorServer {
  url: string;
  close(): Promise<void>;
}

export async function startFloorServer(sqliteFile: string | undefined): Promise<FloorServer> {
  const database = sqliteFile ? openLikeThePlatform(sqliteFile) : undefined;
  const writePlan = database ? planWriter(database) : undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { plan: string; status: string };
      const userId = req.url!.split('/')[4]!; // /identity/admin/users/{userId}/plan
      const timestamp = writePlan ? writePlan(userId, body.plan, body.status) : new Date().toISOString();
      // An unknown user shows up as non-2xx in the bench's figures, as on the real route.
      const [status, json] = timestamp
        ? [
            200,
            JSON.stringify({
              success: true,
              message: 'User plan updated',
              userId,
              plan: body.plan,
              status: body.status,
              updatedBy: 'payment-service',
              timestamp,
            }),
          ]
        : [404, '{"error":"User not found"}'];
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          database?.close();
          resolve();
        }),
      ),
  };
}

/** A second connection to the dev host's database, set as the platform's own (its checkpointer thread serves both). */
function openLikeThePlatform(file: string): Database {
  const database = new (require('better-sqlite3') as typeof import('better-sqlite3'))(file);
  database.pragma('synchronous = NORMAL');
  database.pragma(`wal_autocheckpoint = ${MAX_LOG_FRAMES}`);
  return database;
}

function planWriter(database: Database) {
  const read = database.prepare('select plan, status from users where id = ?');
  const write = database.prepare('update users set plan = ?, status = ?, updated_at = ? where id = ?');
  const append = database.prepare(
    `insert into identity_audit_log (timestamp, actor_type, actor_id, action, target_type, target_id, result, ip, user_agent, request_id, details)
     values (?, 'service', 'payment-service', 'user.plan.update', 'user', ?, 'success', '127.0.0.1', 'autocannon', ?, ?)`,
  );
  return database.transaction((userId: string, plan: string, status: string) => {
    const before = read.get(userId) as { plan: string; status: string } | undefined;
    if (!before) return undefined;
    const now = new Date().toISOString();
    write.run(plan, status, now, userId);
    append.run(now, userId, randomUUID(), JSON.stringify({ from: before, to: { plan, status } }));
    return now;
  });
}
