import { SETTINGS } from '../../functions/settings';
import { describeWithTsql, expectValidTsql, recordAzureSql } from '../helpers/tsql';
import { orchestratorCtx, withDatabase } from './helpers';

/**
 * The statements of the report notices and webhooks (notify/), compiled for Azure SQL and parsed by
 * ScriptDom. The driver answers one row that serves as a notice, a delivery, an endpoint and a
 * preference: an opted-out user (no e-mail is sent), an endpoint URL refused by its form (no
 * connection is made) and a retry window long over (the failed try ends the delivery).
 */
const row = {
  id: 'x_1',
  tracking_id: 'trk_1',
  user_id: 'u1',
  plan: 'pro',
  type: 'report.completed',
  data: JSON.stringify({ status: 'completed', company: 'Acme' }),
  created_at: new Date(),
  updated_at: new Date(),
  state: 'pending',
  version: 0,
  next_at: new Date(),
  webhooks_done: 0,
  email_state: 'pending',
  email_attempts: 0,
  email_error: null,
  email: 'a@example.com',
  email_enabled: 0,
  endpoint_id: 'we_1',
  event_id: 'evt_1',
  event_type: 'report.completed',
  payload: '{}',
  status: 'pending',
  attempts: 0,
  window_attempts: 0,
  next_attempt_at: new Date(),
  window_started_at: new Date('2000-01-01T00:00:00Z'),
  last_status_code: null,
  last_error: null,
  url: 'http://example.invalid/hook',
  description: null,
  secret: 'whsec_1',
  previous_secret: null,
  previous_secret_expires_at: null,
  delivery_id: 'x_1',
  attempt: 1,
  at: new Date(),
  duration_ms: 1,
  status_code: null,
  response_excerpt: null,
  error: null,
  outcome: 'failed',
  n: 0,
};
const { statements: compiled, db: recorded } = recordAzureSql(() => [row]);

beforeAll(() => require('../../shared/config').useProcessSettings({ SERVICES: 'orchestrator', VISUAL_API_TOKEN: 'v'.repeat(40) }, { settings: SETTINGS }));
afterAll(() => require('../../shared/platform').setProcessPlatform(undefined));
beforeEach(() => {
  compiled.length = 0;
});

const ctx = () => withDatabase(orchestratorCtx(), recorded);
const user = { id: 'u1', email: 'a@example.com', role: 'user', permissions: [], plan: 'pro' as const, status: 'active' as const, sessionId: 's1' };
const preferences = () => require('../../functions/orchestrator/notify/preferences');
const endpoints = () => require('../../functions/orchestrator/notify/endpoints');
const deliveries = () => require('../../functions/orchestrator/notify/deliveries');
const dispatch = () => require('../../functions/orchestrator/notify/dispatch');

const paths: [string, string[], () => Promise<unknown>][] = [
  ['keep the address of a report request', ['update'], () => preferences().rememberAddress(ctx(), user, new Date())],
  ['read the preference', ['select'], () => preferences().readPreferences(ctx(), 'u1')],
  ['handle a notice', ['update', 'select', 'insert', 'update', 'select', 'update'], () => dispatch().processEvent(ctx(), { ...row })],
  ['due deliveries', ['select'], () => deliveries().dueDeliveries(ctx(), new Date())],
  ['due deliveries of some notices', ['select'], () => deliveries().dueDeliveries(ctx(), new Date(), ['evt_1'])],
  ['try a delivery', ['update', 'select', 'insert', 'update'], () => deliveries().attemptDelivery(ctx(), { ...row })],
  ["an endpoint's deliveries", ['select', 'select'], () => deliveries().endpointDeliveries(ctx(), 'we_1', { limit: 10, offset: 20 })],
  ["the admins' list", ['select', 'select'], () => deliveries().adminDeliveries(ctx(), { status: 'failed', userId: 'u1', limit: 10, offset: 0 })],
  ['register an endpoint', ['select', 'insert'], () => endpoints().registerEndpoint(ctx(), user, { url: 'https://93.184.216.34/hook' })],
  ['rotate its secret', ['select', 'update'], () => endpoints().rotateSecret(ctx(), user, 'we_1')],
  ['delete it', ['select', 'delete', 'delete', 'delete'], () => endpoints().deleteEndpoint(ctx(), user, 'we_1')],
];

describeWithTsql('notice and webhook statements for Azure SQL', (tsql) => {
  test.each(paths)('%s: every statement is valid T-SQL (ScriptDom), of the kinds expected', async (_name, kinds, run) => {
    await run();
    await expectValidTsql(tsql(), compiled, kinds);
  });
});
