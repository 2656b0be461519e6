import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, buildConnector } from 'undici';
import { startDevHost, type DevHost, type DevHostOptions } from '../../devhost/host';
import { checkAnswer } from './contract';
import { DATABASE, db } from '../../shared/sql/db';
import { isolatedDatabase } from './sql-server';

/** A request from a given loopback address (127.0.0.0/8): a distinct client as the server's socket sees it. */
export type TestRequestInit = RequestInit & { from?: string };

export interface TestHost extends DevHost {
  /** A fresh directory holding this host's local.settings.json, SQLite file and outbox. */
  dir: string;
  fetch(pathOrUrl: string, init?: TestRequestInit): Promise<Response>;
}

const clients = new Map<string, Agent>();
const connect = buildConnector({});

/** A connection pool whose sockets bind to `address`, so the dev host's front end sees that client. */
export function clientAt(address: string): Agent {
  let agent = clients.get(address);
  if (!agent) {
    agent = new Agent({ connect: (options, callback) => connect({ ...options, localAddress: address } as typeof options, callback) });
    clients.set(address, agent);
  }
  return agent;
}

/**
 * An in-process dev host on a free loopback port with its own data directory, generated dev
 * secrets and an in-memory Azurite: real HTTP, real SQLite, real storage, isolated per test file.
 * With SQL_SERVER set (the SQL Server workflow) it runs on a SQL Server database of its own instead;
 * `env: { SQL_SERVER: '' }` keeps a test that exercises SQLite itself on SQLite.
 */
export async function startTestHost(options: Omit<DevHostOptions, 'settingsFile'> = {}): Promise<TestHost> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-test-'));
  const database = options.env?.SQL_SERVER === '' ? { env: {}, drop: async () => {} } : await isolatedDatabase();
  let host: DevHost;
  try {
    host = await startDevHost({
      ...options,
      settingsFile: path.join(dir, 'local.settings.json'),
      env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', ...database.env, ...options.env },
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    ...host,
    dir,
    fetch: async (target, { from, ...init } = {}) => {
      const url = target.startsWith('http') ? target : `${host.url}${target}`;
      const response = await fetch(url, { ...init, ...(from ? { dispatcher: clientAt(from) } : {}) } as RequestInit);
      if (url.startsWith(host.url)) {
        const body = await response.clone().text();
        checkAnswer(init.method ?? 'GET', url, response.status, response.headers.get('content-type'), body);
      }
      return response;
    },
    async stop() {
      await host.stop();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `work` with the host's database connection closed (every query of the host fails, a real
 * fault), then opens it again whatever `work` did: the platform makes a new connection on next use.
 */
export async function withDatabaseClosed<T>(host: DevHost, work: () => Promise<T>): Promise<T> {
  await db().destroy();
  try {
    return await work();
  } finally {
    await host.platform.release(DATABASE).catch(() => undefined);
  }
}
