import { container } from '../../shared/storage';
import { MAX_LINK_TTL_SECONDS, readOnlyLink } from '../../shared/storage-sas';
import { startTestHost, type TestHost } from '../helpers/host';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
  const reports = await container('sas-test');
  await reports.getBlockBlobClient('acme/report.pdf').upload('%PDF-1.7 test', 13, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });
});
afterAll(async () => {
  jest.useRealTimers();
  await host.stop();
});

test('a link reads the blob without any other credential', async () => {
  const link = await readOnlyLink('sas-test', 'acme/report.pdf', 600);
  expect(link).toContain('sp=r&');
  const res = await fetch(link);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(await res.text()).toBe('%PDF-1.7 test');
});

test('the link is read-only: writing or deleting through it is refused', async () => {
  const link = await readOnlyLink('sas-test', 'acme/report.pdf', 600);
  const put = await fetch(link, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'overwritten' });
  expect(put.status).toBe(403);
  const del = await fetch(link, { method: 'DELETE' });
  expect(del.status).toBe(403);
  expect(await (await fetch(link)).text()).toBe('%PDF-1.7 test');
});

test('the link expires after its time to live', async () => {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'] });
  jest.setSystemTime(Date.now() - 3600_000);
  const link = await readOnlyLink('sas-test', 'acme/report.pdf', 60);
  jest.useRealTimers();
  expect((await fetch(link)).status).toBe(403);
  expect(new URL(link).searchParams.get('se')).toBeTruthy();
});

test('a time to live outside 1 second to 12 hours is refused', async () => {
  await expect(readOnlyLink('sas-test', 'acme/report.pdf', 0)).rejects.toThrow(RangeError);
  await expect(readOnlyLink('sas-test', 'acme/report.pdf', MAX_LINK_TTL_SECONDS + 1)).rejects.toThrow(RangeError);
});
