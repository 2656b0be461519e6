import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/host';
import { isolatedDatabase, type IsolatedDatabase } from '../helpers/sql-server';

/**
 * With SQL_SERVER set (the SQL Server workflow) the processes started in one directory share a
 * database of their own, as they share that directory's SQLite file otherwise. The workflow's
 * SQL Server container is thrown away with the run, so these are not dropped.
 */
const databases = new Map<string, Promise<IsolatedDatabase>>();

export interface HostProcess {
  child: ChildProcess;
  urls: Record<string, string>;
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the dev host exactly as `npm start` does, as a separate process in `cwd` (which holds its
 * local.settings.json and .data), and resolves once its banner is printed.
 */
export async function startHostProcess(cwd: string, env: Record<string, string> = {}): Promise<HostProcess> {
  let output = '';
  if (!databases.has(cwd)) databases.set(cwd, isolatedDatabase());
  const database = await databases.get(cwd)!;
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'devhost', 'cli.js')], {
    cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', AzureWebJobsStorage: '', ...database.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl-C to stop.')) {
        resolve(Object.fromEntries([...output.matchAll(/^ {2}(identity|payment|orchestrator|visual)\s+(http\S+)$/gm)].map((m) => [m[1], m[2]])));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`dev host exited with ${code}:\n${output}`)));
  });
  const origin = new URL(Object.values(urls)[0]).origin;
  return {
    child,
    urls,
    origin,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
