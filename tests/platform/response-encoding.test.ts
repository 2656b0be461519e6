import { HttpResponse, type HttpResponseInit } from '@azure/functions';
import { encodeHttpResponse, encodeResponseInit } from '../../devhost/http-server';

const cases: [string, HttpResponseInit][] = [
  ['JSON', { status: 200, jsonBody: { valid: true, user: { id: 'u1', plan: 'pro' } }, headers: { 'X-Request-Id': 'abc' } }],
  ['JSON with its own content type', { status: 201, jsonBody: [1, 2], headers: { 'Content-Type': 'application/problem+json' } }],
  ['text', { status: 200, body: 'banner\nline' }],
  ['non-ASCII JSON', { jsonBody: { company: 'Café Müller ✓ 数据' } }],
  ['text with a content type', { status: 404, body: 'no', headers: { 'content-type': 'text/plain; charset=utf-8' } }],
  ['bytes', { status: 200, body: Buffer.from([0, 1, 2, 255]), headers: { 'Content-Type': 'image/png', ETag: '"x"' } }],
  ['a typed-array view', { body: new Uint8Array(Buffer.from('abcdef').buffer, 2, 3) }],
  ['no body', { status: 204, headers: { 'Retry-After': '5' } }],
  ['a default status', {}],
];

test.each(cases)('a returned %s init is encoded exactly as the library encodes it', async (_name, init) => {
  const direct = encodeResponseInit(init);
  expect(direct).toBeDefined();
  // Text bodies stay strings (sent with the headers in one write): compare the bytes on the wire.
  expect({ ...direct, body: Buffer.from(direct!.body) }).toEqual(await encodeHttpResponse(new HttpResponse(init)));
});

test('streams and cookies are left to the library', () => {
  expect(encodeResponseInit({ body: new ReadableStream() })).toBeUndefined();
  expect(encodeResponseInit({ body: 'x', cookies: [{ name: 'a', value: 'b' }] })).toBeUndefined();
  expect(encodeResponseInit({ body: 'x', headers: new Headers({ a: 'b' }) })).toBeUndefined();
});
