import { bearer, latestCode, type SignedIn } from '../helpers/identity';
import type { TestHost } from '../helpers/host';

export const FAKE_DATE_ONLY = {
  doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'] as const,
} as unknown as Parameters<typeof jest.useFakeTimers>[0];

/** Moves only Date (the in-process host reads the same clock) by `ms`. */
export function advanceClock(ms: number): void {
  setClock(Date.now() + ms);
}

/**
 * Sets only Date to the instant `at` (ms since 1970). For a test that needs an exact instant: with
 * `advanceClock(at - Date.now())` the real clock may tick between the two readings of Date.now().
 */
export function setClock(at: number): void {
  jest.useFakeTimers(FAKE_DATE_ONLY);
  jest.setSystemTime(new Date(at));
}

export async function call(
  host: TestHost,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string>; from?: string } = {},
) {
  const headers: Record<string, string> = { ...(options.token ? bearer(options.token) : {}), ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await host.fetch(`/identity${path}`, { method, headers, body, from: options.from });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined } as { status: number; headers: Headers; body: any };
}

/** Login from a loopback client address (127.x.y.z): the dev host's front end reports it as the client IP. */
export const login = (host: TestHost, email: string, ip?: string) => call(host, 'POST', '/auth/login', { body: { email }, from: ip });

export const verify = (host: TestHost, email: string, code: string, ip?: string) => call(host, 'POST', '/auth/verify', { body: { email, code }, from: ip });

/** Login then verify with the mailed code (like signIn, without throwing), from a given client IP. */
export async function signInFrom(host: TestHost, email: string, ip: string): Promise<SignedIn> {
  const res = await login(host, email, ip);
  if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  const v = await verify(host, email, latestCode(host, email), ip);
  if (v.status !== 200) throw new Error(`verify answered ${v.status}`);
  return v.body;
}

/** A code guaranteed different from `code`. */
export const wrongCode = (code: string) => String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0');

export { expectError } from '../helpers/errors';

/** An email as sent, with CRLF read as LF and quoted-printable's soft line breaks (a trailing '=') joined; the emails are ASCII without '='. */
export const mailText = (raw: string) => raw.replace(/\r\n/g, '\n').replace(/=\n/g, '');

/** Audit entries as an admin sees them. */
export async function auditEntries(host: TestHost, adminToken: string, query: Record<string, string>) {
  const res = await call(host, 'GET', `/admin/audit?${new URLSearchParams(query)}`, { token: adminToken });
  expect(res.status).toBe(200);
  return res.body.entries as any[];
}
