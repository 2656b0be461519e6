import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost, type DevHost, type DevHostOptions } from '../../devhost/host';

export interface TestHost extends DevHost {
  /** A fresh directory holding this host's local.settings.json, SQLite file and outbox. */
  dir: string;
  fetch(pathOrUrl: string, init?: RequestInit): Promise<Response>;
}

/**
 * An in-process dev host on a free loopback port with its own data directory, generated dev
 * secrets and an in-memory Azurite: real HTTP, real SQLite, real storage, isolated per test file.
 */
export async function startTestHost(options: Omit<DevHostOptions, 'settingsFile'> = {}): Promise<TestHost> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-test-'));
  const host = await startDevHost({
    ...options,
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', ...options.env },
  });
  return {
    ...host,
    dir,
    fetch: (target, init) => fetch(target.startsWith('http') ? target : `${host.url}${target}`, init),
    async stop() {
      await host.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
