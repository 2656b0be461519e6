import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signInAdmin } from '../helpers/identity';

/**
 * Paging is one schema on every service: the same bad `limit` gets the same 400 VALIDATION_FAILED,
 * with the same message and details, from identity, payment and orchestrator alike.
 */
let host: TestHost;
let adminToken: string;
beforeAll(async () => {
  host = await startTestHost();
  adminToken = (await signInAdmin(host)).accessToken;
});
afterAll(() => host.stop());

const PAGED_LISTS = [
  '/identity/admin/users',
  '/identity/admin/audit',
  '/identity/admin/sessions',
  '/payment/admin/unsynced',
  '/orchestrator/api/admin/dashboard/executions',
  '/orchestrator/api/admin/profiles',
];

async function answer(path: string, query: string) {
  const res = await host.fetch(`${path}?${query}`, { headers: bearer(adminToken) });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, error: body.error, code: body.code, message: body.message, details: body.details };
}

test.each(['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=', 'limit=1e3'])(
  '%s: the same 400 VALIDATION_FAILED on every paged list',
  async (query) => {
    const answers = await Promise.all(PAGED_LISTS.map((path) => answer(path, query)));
    const first = answers[0];
    expect(first).toMatchObject({ status: 400, error: 'Bad request', code: 'VALIDATION_FAILED', message: expect.stringMatching(/^Invalid query: limit /) });
    expect(first.details).toEqual([expect.objectContaining({ field: 'limit' })]);
    for (const [i, other] of answers.entries()) expect({ path: PAGED_LISTS[i], ...other }).toEqual({ path: PAGED_LISTS[i], ...first });
  },
);

test('the bounds themselves are accepted everywhere', async () => {
  for (const query of ['limit=1', 'limit=100']) {
    const statuses = await Promise.all(PAGED_LISTS.map(async (path) => [path, (await host.fetch(`${path}?${query}`, { headers: bearer(adminToken) })).status]));
    expect(statuses).toEqual(PAGED_LISTS.map((path) => [path, 200]));
  }
});
