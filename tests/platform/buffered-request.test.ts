import { HttpRequest, type HttpRequestInit } from '@azure/functions';
import { BufferedRequest } from '../../devhost/buffered-request';

const URL = 'http://localhost:7071/identity/auth/verify?x=1';
const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer abc', 'x-forwarded-for': '127.0.0.1' };

/** The same request both ways: the dev host's buffered one and undici's, each under the library's HttpRequest. */
function both(method: string, body?: Buffer): [string, HttpRequest][] {
  const init = { query: {}, params: {} };
  return [
    ['buffered', new HttpRequest({ ...init, nativeRequest: new BufferedRequest(URL, method, HEADERS, body) } as HttpRequestInit)],
    ['undici', new HttpRequest({ ...init, nativeRequest: new Request(URL, { method, headers: HEADERS, body }) } as HttpRequestInit)],
  ];
}

async function outcome(action: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await action();
    return { value: value instanceof ArrayBuffer ? Buffer.from(value).toString('hex') : value };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

const JSON_BODY = Buffer.from('\ufeff{"email":"café@example.com","n":1}');

test.each([
  ['text, then a second read', (r: HttpRequest) => [() => r.text(), () => r.arrayBuffer()]],
  ['json', (r: HttpRequest) => [() => r.json(), () => r.json()]],
  ['arrayBuffer', (r: HttpRequest) => [() => r.arrayBuffer(), () => r.text()]],
  ['blob', (r: HttpRequest) => [async () => (await r.blob()).size, () => r.text()]],
  ['the body stream after a read', (r: HttpRequest) => [() => r.text(), async () => r.body !== null && r.bodyUsed]],
  ['a clone', (r: HttpRequest) => [async () => r.clone().text(), () => r.text()]],
] as const)('a buffered request answers %s as undici does', async (_name, steps) => {
  const results = await Promise.all(
    both('POST', JSON_BODY).map(async ([, request]) => {
      const seen: unknown[] = [request.bodyUsed];
      for (const step of steps(request)) seen.push(await outcome(step as () => Promise<unknown>), request.bodyUsed);
      return seen;
    }),
  );
  expect(results[0]).toEqual(results[1]);
});

test('form bodies, headers, method and url match', async () => {
  const form = Buffer.from('a=1&b=two');
  const [[, buffered], [, real]] = both('POST', form);
  expect([buffered.method, buffered.url, buffered.headers.get('authorization'), buffered.query.get('x')]).toEqual([
    real.method,
    real.url,
    real.headers.get('authorization'),
    real.query.get('x'),
  ]);
  const formHeaders = { ...HEADERS, 'content-type': 'application/x-www-form-urlencoded' };
  const bufferedForm = await new BufferedRequest(URL, 'POST', formHeaders, form).formData();
  const realForm = await new Request(URL, { method: 'POST', headers: formHeaders, body: form }).formData();
  expect([...bufferedForm.entries()]).toEqual([...realForm.entries()]);
});

test('GET and bodiless requests read as empty and are never used up', async () => {
  for (const [method, body] of [
    ['GET', undefined],
    ['POST', undefined],
  ] as const) {
    const results = await Promise.all(
      both(method, body).map(async ([, r]) => [r.body, await outcome(() => r.text()), await outcome(() => r.arrayBuffer()), r.bodyUsed]),
    );
    expect(results[0]).toEqual(results[1]);
  }
});
