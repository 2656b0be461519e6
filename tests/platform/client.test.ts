import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { answer, ApiError, platformClient, type PlatformClient } from '../../client';
import { freePort } from '../../devhost/azurite';
import { PROJECT_ROOT } from '../../devhost/host';
import { SERVICE_NAMES } from '../../shared/config';
import { checkAnswer } from '../helpers/contract';
import { startTestHost, type TestHost } from '../helpers/host';
import { latestCode } from '../helpers/identity';
import { barChart } from '../visual/helpers';

const run = promisify(execFile);

/**
 * The typed client (client/index.ts): its types are what the route tables generate now, and it
 * makes real calls through the dev host, each answer checked against the API documents.
 */
const GENERATOR = path.join(PROJECT_ROOT, 'dist', 'scripts', 'client-generate.js');
const generator = (...args: string[]) =>
  run(process.execPath, [GENERATOR, ...args]).catch((error) => error as { code: number; stdout: string; stderr: string });

test('client/openapi/*.d.ts are what the route tables generate (npm run client:generate)', async () => {
  const check = await generator('--check');
  // On failure the message says which file differs and to run npm run client:generate.
  expect((check as { stderr: string }).stderr).toBe('');
  expect(check).not.toHaveProperty('code');
});

test('the check fails on a types file that differs from the route tables, and names it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
  try {
    for (const service of SERVICE_NAMES) fs.copyFileSync(path.join(PROJECT_ROOT, 'client', 'openapi', `${service}.d.ts`), path.join(dir, `${service}.d.ts`));
    fs.appendFileSync(path.join(dir, 'payment.d.ts'), 'export type Stale = true;\n');
    const check = await generator('--check', '--dir', dir);
    expect(check).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`${path.join(dir, 'payment.d.ts')} differ from the route tables: run npm run client:generate`),
    });
    expect((check as { stderr: string }).stderr).not.toContain('identity.d.ts');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('calls through the dev host', () => {
  let host: TestHost;
  /** Every answer the client receives is held to the API document, as the test host's own fetch does. */
  const checked = async (request: Request): Promise<Response> => {
    const method = request.method;
    const response = await fetch(request);
    checkAnswer(method, request.url, response.status, response.headers.get('content-type'), await response.clone().text());
    return response;
  };
  const client = (token?: string): PlatformClient => platformClient({ baseUrl: host.url, token, fetch: checked });

  async function signIn(email: string): Promise<string> {
    await answer(client().identity.POST('/identity/auth/login', { body: { email } }));
    const signedIn = await answer(client().identity.POST('/identity/auth/verify', { body: { email, code: latestCode(host, email) } }));
    expect(signedIn.user.email).toBe(email);
    return signedIn.accessToken;
  }

  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  test('sign in, then one typed call to each service', async () => {
    const user = client(await signIn('typed@example.com'));
    const validated = await answer(user.identity.GET('/identity/auth/validate'));
    expect(validated.user).toMatchObject({ email: 'typed@example.com', plan: 'free' });
    const status = await answer(user.payment.GET('/payment/user-status'));
    expect(status.plan).toBe('free');

    const admin = client(await signIn('admin@example.com'));
    const overview = await answer(admin.orchestrator.GET('/orchestrator/api/admin/dashboard/overview'));
    expect(overview.dashboard.health.total_executions).toBe(0);

    const visual = client(host.platform.config.VISUAL_API_TOKEN);
    const rendered = await answer(visual.visual.POST('/visual/api/v1/charts/render', { body: { charts: [{ ...barChart(), type: 'bar' }] } }));
    expect(rendered.charts).toHaveLength(1);
  });

  test('an error answer becomes an ApiError carrying the envelope; an unreachable service one with status 0', async () => {
    const anonymous = client();
    const refused = await answer(anonymous.payment.GET('/payment/user-status')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 401, code: 'AUTH_REQUIRED', body: { error: expect.any(String), timestamp: expect.any(String) } });

    const missing = await answer(
      client(await signIn('admin@example.com')).orchestrator.GET('/orchestrator/api/admin/status/{trackingId}', {
        params: { path: { trackingId: 'no-such-run' } },
      }),
    ).catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'EXECUTION_NOT_FOUND' });

    const gone = platformClient({ serviceUrls: { identity: `http://127.0.0.1:${await freePort()}/identity` }, baseUrl: host.url });
    await expect(answer(gone.identity.GET('/identity/health'), 'identity')).rejects.toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });

  test('a base URL that does not end with the service name is refused at once', () => {
    expect(() => platformClient({ serviceUrls: { payment: 'http://127.0.0.1/pay' }, baseUrl: host.url })).toThrow(/must end with \/payment/);
  });
});
