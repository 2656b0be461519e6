import { startTestHost, type TestHost } from '../helpers/host';
import { usingSqlServer } from '../helpers/sql-server';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

// Each service checks the dependencies its own code uses, and no others.
test.each([
  ['identity', ['sql']],
  ['payment', ['identity', 'sql', 'stripe', 'tableStorage']],
  ['orchestrator', ['ai', 'sql', 'storage', 'visual', 'workflowLog']],
  ['visual', ['renderer', 'storage']],
])('%s health names the dependencies it uses and answers 200', async (service, dependencies) => {
  const res = await host.fetch(`/${service}/health`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body).toMatchObject({ service, status: 'healthy' });
  expect(Object.keys(body.dependencies).sort()).toEqual(dependencies);
  if (body.dependencies.sql)
    expect(body.dependencies.sql).toMatchObject({ ok: true, detail: usingSqlServer() ? `Azure SQL ${process.env.SQL_SERVER}` : 'SQLite' });
  if (body.dependencies.storage)
    expect(body.dependencies.storage).toMatchObject({ ok: true, detail: expect.stringMatching(/^devstoreaccount1\/(reports|chart-cache)$/) });
});
