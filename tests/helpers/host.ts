import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost, type DevHost, type DevHostOptions } from '../../devhost/host';
import { isolatedDatabase } from './sql-server';

export interface TestHost extends DevHost {
  /** A fresh directory holding this host's local.settings.json, SQLite file and outbox. */
  dir: string;
  fetch(pathOrUrl: string, init?: RequestInit): Promise<Response>;
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
    fetch: (target, init) => fetch(target.startsWith('http') ? target : `${host.url}${target}`, init),
    async stop() {
      await host.stop();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
