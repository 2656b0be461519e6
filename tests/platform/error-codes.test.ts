import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/host';
import { ERROR_CODES, statusesOf, type ErrorCode } from '../../shared/http/error-codes';
import { Code, badRequest, errorResponse, forbidden, httpError, notFound, unauthorized } from '../../shared/http/errors';
import { ERROR_ENVELOPE } from '../../shared/http/schemas';
import { typescriptSources } from '../helpers/sources';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
const LIST_FILE = path.join('shared', 'http', 'error-codes.ts');

/** The TypeScript sources of the deployed code and the tooling, relative to the project root. */
const sources = () => typescriptSources(['functions', 'shared', 'devhost', 'tools']);

const read = (rel: string) => fs.readFileSync(path.join(PROJECT_ROOT, rel), 'utf8');

test('no source spells an error code as a string: every throw site names it from the list', () => {
  const spelled = new RegExp(`['"\`](${CODES.join('|')})['"\`]`, 'g');
  const found = sources()
    .filter((file) => file !== LIST_FILE)
    .flatMap((file) => [...read(file).matchAll(spelled)].map((m) => `${file}: ${m[1]}`));
  expect(found).toEqual([]);
});

test('every listed code is answered somewhere (the list holds no dead codes)', () => {
  const text = sources()
    .filter((file) => file !== LIST_FILE)
    .map(read)
    .join('\n');
  expect(CODES.filter((code) => !text.includes(`Code.${code}`))).toEqual([]);
});

test('every code has a status of 4xx or 5xx and a one-line meaning', () => {
  for (const code of CODES) {
    expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    for (const status of statusesOf(code)) expect(status >= 400 && status < 600).toBe(true);
    const entry = ERROR_CODES[code] as { meaning: string };
    expect(entry.meaning).toMatch(/^\S.{10,}\.$/);
    expect(entry.meaning).not.toMatch(/\n/);
  }
});

test("the API documents give the list as the error envelope's code enum", () => {
  const code = ERROR_ENVELOPE.properties.code;
  expect(code.enum).toEqual(CODES);
});

test('a factory takes the status and the error name from the list', () => {
  const answer = errorResponse(httpError(Code.RESOURCE_NOT_FOUND, 'No resource "x"'));
  expect(answer.status).toBe(404);
  expect(answer.jsonBody).toMatchObject({ error: 'Resource not found', message: 'No resource "x"', code: 'RESOURCE_NOT_FOUND' });
  expect(notFound('No user has id u1', Code.USER_NOT_FOUND)).toMatchObject({ status: 404, error: 'Not found', code: 'USER_NOT_FOUND' });
  expect(badRequest('Invalid query: limit must be >= 1')).toMatchObject({ status: 400, error: 'Bad request', code: 'VALIDATION_FAILED' });
  // A code listed with two statuses is answered with the one the throw site names.
  expect(unauthorized('The account is inactive', Code.AUTH_USER_INACTIVE).status).toBe(401);
  expect(forbidden('The account is inactive', Code.AUTH_USER_INACTIVE)).toMatchObject({ status: 403, error: 'Forbidden' });
  expect(httpError(Code.AUTH_USER_INACTIVE, 'x').status).toBe(401);
});

test('the compiler refuses an unlisted code, and a listed code with another status', () => {
  // Checked by `tsc` when the tests are built (never run): each line must be a type error, or the build fails.
  const refused = () => [
    // @ts-expect-error not a listed code
    notFound('x', 'NO_SUCH_CODE'),
    // @ts-expect-error USER_NOT_FOUND is listed with 404, not 400
    badRequest('x', Code.USER_NOT_FOUND),
    // @ts-expect-error VALIDATION_FAILED is listed with 400 only
    httpError(Code.VALIDATION_FAILED, 'x', { status: 404 }),
  ];
  expect(typeof refused).toBe('function');
});
