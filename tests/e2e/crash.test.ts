import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { QueueClient } from '@azure/storage-queue';
import { freePort, startAzurite, type AzuriteHandle } from '../../devhost/azurite';
import { stepsFor } from '../../functions/orchestrator/workflow/stages';
import { startChatServer, type ChatServer } from '../orchestrator/chat-server';
import { api } from '../helpers/api';
import { signInAt } from '../helpers/identity';
import { waitFor } from '../helpers/wait';
import { ACME } from '../orchestrator/helpers';
import { startHostProcess, type HostProcess } from './process';

/**
 * The host process is killed (SIGKILL: no shutdown, nothing flushed) in the middle of a report.
 * Whatever the execution says it completed, the processing log has; after a restart the
 * execution finishes, and the owner's view and the admin view report the same health.
 */
let dir: string;
let azurite: AzuriteHandle;
let chat: ChatServer;
let host: HostProcess | undefined;

const env = async () => ({
  AzureWebJobsStorage: azurite.connectionString,
  ORCHESTRATOR_AI_ENDPOINT: chat.url,
  VISUAL_URL: `http://127.0.0.1:${await freePort()}/visual`,
  // A long flush interval: rows that only the batch writer held would be lost to the kill.
  ORCHESTRATOR_LOG_FLUSH_MS: '10000',
  ORCHESTRATOR_LEASE_SECONDS: '10',
});

const signIn = async (email: string): Promise<string> => (await signInAt(host!.urls.identity, path.join(dir, '.data'), email)).accessToken;

function database() {
  return new Database(path.join(dir, '.data', 'platform.sqlite'), { readonly: true, fileMustExist: true });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));
  azurite = await startAzurite();
  chat = await startChatServer();
  chat.script([{ status: 200, delayMs: 250 }]);
});
afterAll(async () => {
  await host?.stop();
  await chat?.close();
  await azurite?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('after SIGKILL mid-report the log has every step the execution completed; after a restart both views agree', async () => {
  host = await startHostProcess(dir, await env());
  const admin = await signIn('admin@example.com');
  await api(`${host.urls.identity}/admin/users`, { method: 'POST', token: admin, body: { email: 'crash@example.com' } });
  const users = await api(`${host.urls.identity}/admin/users?email=crash@example.com`, { token: admin });
  await api(`${host.urls.identity}/admin/users/${users.body.users[0].id}/plan`, { method: 'PUT', token: admin, body: { plan: 'pro' } });
  const token = await signIn('crash@example.com');
  const accepted = await api(`${host.urls.orchestrator}/api/reports`, { method: 'POST', token, body: ACME });
  expect(accepted.status).toBe(202);
  const trackingId = accepted.body.trackingId as string;

  // Kill once the second report section has committed.
  const progress = () => {
    const sqlite = database();
    try {
      const execution = sqlite.prepare('select current_step, progress_percentage from orchestrator_executions where tracking_id = ?').get(trackingId) as {
        current_step: number | null;
        progress_percentage: number;
      };
      const completed = (
        sqlite.prepare("select step_number from orchestrator_processing_log where tracking_id = ? and status = 'completed'").all(trackingId) as {
          step_number: number;
        }[]
      ).map((r) => r.step_number);
      return { execution, completed };
    } finally {
      sqlite.close();
    }
  };
  await waitFor(async () => ((progress().execution.current_step ?? -1) >= 6 ? true : undefined), 30_000, 'step 6 committed');
  host.child.kill('SIGKILL');
  await new Promise((resolve) => host!.child.once('exit', resolve));
  host = undefined;

  const afterCrash = progress();
  // The order steps complete in: AI_ORCHESTRATION (4) completes after the report sections it runs (5-10).
  const order = stepsFor('pro')
    .map((s) => s.number)
    .filter((n) => n !== 4);
  order.splice(order.indexOf(10) + 1, 0, 4);
  const done = order.slice(0, order.indexOf(afterCrash.execution.current_step!) + 1);
  expect(done).toEqual(expect.arrayContaining([0, 1, 2, 3, 5, 6]));
  expect(afterCrash.completed).toEqual(expect.arrayContaining(done));

  // Restart. The queue would redeliver the message once its visibility lapses (10 minutes); it is sent
  // again as soon as the dead run's lease (10 s without progress) lets a new run take the execution.
  const killedAt = Date.now();
  host = await startHostProcess(dir, await env());
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + 10_500 - Date.now())));
  const queue = new QueueClient(azurite.connectionString, 'report-executions');
  await queue.sendMessage(Buffer.from(JSON.stringify({ trackingId })).toString('base64'));
  const ownerToken = await signIn('crash@example.com');
  const adminToken = await signIn('admin@example.com');
  const owner = await waitFor(
    async () => {
      const view = await api(`${host!.urls.orchestrator}/api/reports/${trackingId}`, { token: ownerToken });
      return view.body.status === 'completed' ? view.body : undefined;
    },
    60_000,
    'completed after restart',
  );
  const adminView = await api(`${host.urls.orchestrator}/api/admin/status/${trackingId}`, { token: adminToken });
  expect(owner).toMatchObject({ status: 'completed', attempts: 2, progress_percentage: 100 });
  expect(adminView.body.data.execution.health_status).toBe(owner.health_status);
  expect(owner.health_status).toBe('DEGRADED');
  // The finished run logged every step it completed.
  expect(progress().completed.filter((n) => n === 99)).toHaveLength(1);
});
