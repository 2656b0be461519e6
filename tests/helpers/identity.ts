import type { TestHost } from './host';
import { api } from './api';
import { latestCode as latestMailedCode } from '../../tools/outbox';

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  user: { id: string; email: string; role: string; permissions: string[]; plan: string; status: string };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The newest one-time code mailed to `email` by the test host's identity (its dev outbox). */
export const latestCode = (host: TestHost, email: string): string => latestMailedCode(host.dataDir, email);

/** Signs in over HTTP exactly as a user would: POST /auth/login, read the mailed code, POST /auth/verify. */
export async function signIn(host: TestHost, email: string): Promise<SignedIn> {
  const login = await host.fetch('/identity/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  if (login.status !== 200) throw new Error(`login for ${email} answered ${login.status}: ${await login.text()}`);
  const code = latestCode(host, email);
  const verify = await host.fetch('/identity/auth/verify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, code }),
  });
  if (verify.status !== 200) throw new Error(`verify for ${email} answered ${verify.status}: ${await verify.text()}`);
  return (await verify.json()) as SignedIn;
}

/** The bootstrap super admin (BOOTSTRAP_ADMIN_EMAIL, admin@example.com in the sample settings). */
export const signInAdmin = (host: TestHost) => signIn(host, 'admin@example.com');

/** signIn against an identity in another process (`identityUrl` is its base, `dataDir` the folder holding its outbox). */
export async function signInAt(identityUrl: string, dataDir: string, email: string): Promise<SignedIn> {
  const login = await api(`${identityUrl}/auth/login`, { method: 'POST', body: { email } });
  if (login.status !== 200) throw new Error(`login for ${email} answered ${login.status}: ${JSON.stringify(login.body)}`);
  const verified = await api(`${identityUrl}/auth/verify`, { method: 'POST', body: { email, code: latestMailedCode(dataDir, email) } });
  if (verified.status !== 200) throw new Error(`verify for ${email} answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  return verified.body as SignedIn;
}

/** The user's plan as identity holds it now (GET /auth/validate with the user's token). */
export async function planInIdentity(host: TestHost, user: SignedIn): Promise<string> {
  const res = await host.fetch('/identity/auth/validate', { headers: bearer(user.accessToken) });
  if (res.status !== 200) throw new Error(`validate for ${user.user.email} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { user: { plan: string } }).user.plan;
}
