import { startTestHost, type TestHost } from '../helpers/host';
import { DAY, HOUR, NOW, adminClient, clearOrchestratorTables, insertExecution, useFakeClock, type AdminClient } from './fixtures';
import { expectError } from '../helpers/errors';

let host: TestHost;
let client: AdminClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  host = await startTestHost();
  useFakeClock();
  client = await adminClient(host);
  await clearOrchestratorTables();
  // Five companies; each one's latest execution decides its status.
  await insertExecution({ company_name: 'ACME Corp', createdAgo: 5 * DAY, processing_status: 'failed' });
  ids.acme = await insertExecution({ company_name: 'ACME Corp', createdAgo: HOUR, processing_status: 'completed', industry_id: '31' });
  ids.acmeLtd = await insertExecution({ company_name: 'acme ltd', createdAgo: 2 * HOUR, processing_status: 'failed' });
  await insertExecution({ company_name: 'Beta 100% Foods', createdAgo: 4 * DAY });
  await insertExecution({ company_name: 'Beta 100% Foods', createdAgo: 3 * DAY });
  ids.beta = await insertExecution({ company_name: 'Beta 100% Foods', createdAgo: 3 * HOUR, processing_status: 'processing' });
  ids.gamma = await insertExecution({ company_name: 'Gamma_Works', createdAgo: 4 * HOUR });
  ids.delta = await insertExecution({ company_name: "Delta O'Neil", createdAgo: 5 * HOUR, processing_status: 'failed' });
});
afterAll(async () => {
  jest.useRealTimers();
  await host.stop();
});

const profiles = async (query = '') => {
  const res = await client.get(`profiles${query}`);
  expect(res.status).toBe(200);
  return res.body;
};
const names = (body: any) => body.profiles.map((p: any) => p.company_name);

test('each company once, newest submission first, with its latest execution, count and last submission', async () => {
  const body = await profiles();
  expect(names(body)).toEqual(['ACME Corp', 'acme ltd', 'Beta 100% Foods', 'Gamma_Works', "Delta O'Neil"]);
  expect(body.profiles[0]).toEqual({
    company_name: 'ACME Corp',
    industry_id: '31',
    execution_count: 2,
    last_submission_at: new Date(NOW.getTime() - HOUR).toISOString(),
    latest_status: 'completed',
    latest_tracking_id: ids.acme,
  });
  expect(body.profiles[2]).toMatchObject({ execution_count: 3, latest_status: 'processing', latest_tracking_id: ids.beta });
  expect(body.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
});

test.each([
  ['failed', ['acme ltd', "Delta O'Neil"]],
  ['completed', ['ACME Corp', 'Gamma_Works']],
  ['processing', ['Beta 100% Foods']],
  ['all', ['ACME Corp', 'acme ltd', 'Beta 100% Foods', 'Gamma_Works', "Delta O'Neil"]],
])('status=%s filters on the latest execution', async (status, expected) => {
  const body = await profiles(`?status=${status}`);
  expect(names(body)).toEqual(expected);
  expect(body.pagination.total).toBe(expected.length);
});

test.each([
  ['acme', ['ACME Corp', 'acme ltd']],
  ['ACME CORP', ['ACME Corp']],
  ['  cMe ', ['ACME Corp', 'acme ltd']],
  ['100%', ['Beta 100% Foods']],
  ['0%F', []],
  ['_', ['Gamma_Works']],
  ["o'neil", ["Delta O'Neil"]],
  ["' OR 1=1 --", []],
  ['zzz', []],
])('search=%j matches company names case-insensitively and literally', async (search, expected) => {
  const body = await profiles(`?search=${encodeURIComponent(search)}`);
  expect(names(body)).toEqual(expected);
  expect(body.pagination.total).toBe(expected.length);
});

test('search and status combine', async () => {
  expect(names(await profiles('?search=acme&status=failed'))).toEqual(['acme ltd']);
});

test('paging: pages of two, the last one short, past the end empty with the true total', async () => {
  const pages = await Promise.all([1, 2, 3, 4].map((p) => profiles(`?page=${p}&limit=2`)));
  expect(pages.map(names)).toEqual([['ACME Corp', 'acme ltd'], ['Beta 100% Foods', 'Gamma_Works'], ["Delta O'Neil"], []]);
  expect(pages.map((p) => p.pagination)).toEqual([1, 2, 3, 4].map((page) => ({ page, limit: 2, total: 5, totalPages: 3 })));
  expect((await profiles('?limit=100')).pagination).toEqual({ page: 1, limit: 100, total: 5, totalPages: 1 });
  expect((await profiles('?limit=1')).profiles).toHaveLength(1);
});

test('no match: total 0 and no pages', async () => {
  expect((await profiles('?search=nothing-like-this')).pagination).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
  expect((await profiles('?search=nothing-like-this&page=2')).pagination).toEqual({ page: 2, limit: 20, total: 0, totalPages: 0 });
});

test.each(['page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=', 'limit=0', 'limit=101', 'limit=x', 'status=done', `search=${'a'.repeat(101)}`, 'q=acme'])(
  '%s is a 400',
  async (query) => {
    const res = await client.get(`profiles?${query}`);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body).toMatchObject({ error: 'Bad request' });
  },
);
