import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../devhost/host';
import { SERVICE_NAMES } from '../../shared/config';
import { ContractViolation, checkAnswer } from '../helpers/contract';
import { startTestHost, type TestHost } from '../helpers/host';
import { expectErrorAnswer } from '../helpers/errors';

const run = promisify(execFile);

/** Each service publishes an OpenAPI 3.1 document generated from its route table, and a reference page. */
describe('the contract', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host.stop());

  test.each(SERVICE_NAMES)("%s: openapi.json is served and passes Redocly's lint with no errors", async (service) => {
    const res = await host.fetch(`/${service}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, unknown>; components: { securitySchemes: object } };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).length).toBeGreaterThan(2);
    const file = path.join(host.dir, `${service}.openapi.json`);
    fs.writeFileSync(file, JSON.stringify(document));
    const lint = await run(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly'), ['lint', '--format', 'json', file], { cwd: host.dir }).catch(
      (error) => error as { stdout: string; code: number },
    );
    const report = JSON.parse((lint as { stdout: string }).stdout) as { totals: { errors: number }; problems: { message: string; severity: string }[] };
    expect(report.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  test('the reference page and its files are served from the package, under a strict CSP', async () => {
    const page = await host.fetch('/identity/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    const html = await page.text();
    expect(html).toContain('docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/<script>[^<]/);
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'text/javascript'],
      ['swagger-ui.css', 'text/css'],
      ['init.js', 'text/javascript'],
    ]) {
      const asset = await host.fetch(`/identity/docs/${file}`);
      expect([asset.status, asset.headers.get('content-type')?.split(';')[0]]).toEqual([200, type]);
    }
    // fetch resolves the dots: the request is for /etc/passwd, which no route serves (the host's bare 404).
    const escaped = await host.fetch('/identity/docs/../../etc/passwd');
    expect([escaped.status, await escaped.text()]).toEqual([404, '']);
    await expectErrorAnswer(await host.fetch('/identity/docs/..%2F..%2Fetc%2Fpasswd'), 400, 'VALIDATION_FAILED');
    // Names every JavaScript object answers to are no files either (the fuzzer's valueOf was a 500).
    for (const file of ['valueOf', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      await expectErrorAnswer(await host.fetch(`/identity/docs/${file}`), 404, 'NOT_FOUND');
    }
  });

  test('an answer the document does not describe fails the test that received it', async () => {
    const url = `${host.url}/identity/auth/validate`;
    expect(() => checkAnswer('GET', url, 200, 'application/json', JSON.stringify({ valid: true }))).toThrow(ContractViolation);
    expect(() => checkAnswer('GET', url, 202, 'application/json', '{}')).toThrow(/a status its API document does not list/);
    expect(() => checkAnswer('GET', url, 401, 'application/json', JSON.stringify({ message: 'no' }))).toThrow(ContractViolation);
    const envelope = (error: string, code: string) => JSON.stringify({ error, message: 'no', code, timestamp: new Date().toISOString() });
    expect(() => checkAnswer('GET', url, 401, 'application/json', envelope('Unauthorized', 'AUTH_REQUIRED'))).not.toThrow();
    // A status the operation does not list fails however well-formed its error body is.
    expect(() => checkAnswer('GET', url, 404, 'application/json', envelope('Not found', 'USER_NOT_FOUND'))).toThrow(/a status its API document does not list/);
    expect(() => checkAnswer('GET', url, 500, 'application/json', envelope('Internal server error', 'INTERNAL'))).toThrow(
      /a status its API document does not list/,
    );
    // An error answer without the envelope fails too.
    expect(() => checkAnswer('GET', url, 401, 'text/plain', 'no')).toThrow(/without the JSON error envelope/);
    // A status the route lists beyond its guard and input (USER_NOT_FOUND on reading a user) passes, and is in its API document.
    const user = `${host.url}/identity/admin/users/u-1`;
    expect(() => checkAnswer('GET', user, 404, 'application/json', envelope('Not found', 'USER_NOT_FOUND'))).not.toThrow();
    const document = (await (await host.fetch('/identity/openapi.json')).json()) as any;
    expect(document.paths['/identity/admin/users/{id}'].get.responses['404']).toEqual({
      description: expect.stringContaining('USER_NOT_FOUND'),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });
});
