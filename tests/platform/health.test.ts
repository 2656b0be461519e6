import { startTestHost, type TestHost } from '../helpers/host';
import { usingSqlServer } from '../helpers/sql-server';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

test.each(['identity', 'payment', 'orchestrator'])('%s health names SQL and storage and answers 200', async (service) => {
  const res = await host.fetch(`/${service}/health`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body).toMatchObject({ service, status: 'healthy' });
  expect(body.dependencies.sql).toMatchObject({ ok: true, detail: usingSqlServer() ? `Azure SQL ${process.env.SQL_SERVER}` : 'SQLite' });
  expect(body.dependencies.storage).toMatchObject({ ok: true, detail: 'devstoreaccount1' });
});
