import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signInAdmin } from '../helpers/identity';

/**
 * A caller's X-Request-Id is kept only when it is 1 to 64 of [A-Za-z0-9._:-] (docs/limits.md): then
 * it comes back on the answer and is what the audit trail and the logs record. Any other value is
 * replaced by the invocation's own id (a UUID), the same in the answer, the audit trail and the
 * logs, and the request is served as usual: a request id is for tracing, so a bad one is not a
 * reason to refuse the request, only to not write it anywhere.
 */
let host: TestHost;
let adminToken: string;
beforeAll(async () => {
  host = await startTestHost();
  adminToken = (await signInAdmin(host)).accessToken;
});
afterAll(() => host.stop());

let created = 0;
/** Creates a user (an audited admin action) sending `requestId`; answers the id the answer carried and the one the audit entry holds. */
async function createUserWith(requestId: string) {
  const res = await host.fetch('/identity/admin/users', {
    method: 'POST',
    headers: { ...bearer(adminToken), 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ email: `request-id-${++created}@example.com` }),
  });
  expect(res.status).toBe(201);
  const { user } = (await res.json()) as { user: { id: string } };
  const audit = await host.fetch(`/identity/admin/audit?${new URLSearchParams({ action: 'user.create', target: user.id })}`, { headers: bearer(adminToken) });
  const { entries } = (await audit.json()) as { entries: { requestId: string }[] };
  expect(entries).toHaveLength(1);
  return { answered: res.headers.get('x-request-id'), audited: entries[0].requestId };
}

test.each(['trace-2026.01:Ab_9', 'a'.repeat(64), '0f8fad5b-d9cb-469f-a165-70867728950e'])('%s fits: it is answered and audited as sent', async (requestId) => {
  expect(await createUserWith(requestId)).toEqual({ answered: requestId, audited: requestId });
});

test.each([
  ['65 characters', 'a'.repeat(65)],
  ['100 characters', 'r'.repeat(100)],
  ['a space', 'my id'],
  ['markup', '<script>alert(1)</script>'],
  ['quotes and a semicolon', `x";DROP TABLE audit;--`],
  ['a tab', 'a\tb'],
  ['percent-encoded line breaks', 'a%0d%0aFAKE: entry'],
  ['a slash', '../../etc'],
])('one with %s is replaced by a generated id, the same in the answer and the audit trail', async (_what, requestId) => {
  const { answered, audited } = await createUserWith(requestId);
  expect(answered).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(audited).toBe(answered);
});

test('without one, each request gets its own generated id', async () => {
  const ids = await Promise.all([1, 2].map(async () => (await host.fetch('/identity/health?skip=sql')).headers.get('x-request-id')));
  expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ids[1]).not.toBe(ids[0]);
});
