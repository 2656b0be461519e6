import fs from 'node:fs';
import path from 'node:path';
import type { TestHost } from './host';

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  user: { id: string; email: string; role: string; permissions: string[]; plan: string; status: string };
}

/**
 * The newest one-time code mailed to `email`, read from the dev outbox (<DATA_DIR>/outbox/*.eml).
 * Login emails carry the code on a line "Your sign-in code is NNNNNN".
 */
export function latestCode(host: TestHost, email: string): string {
  const outbox = path.join(host.dataDir, 'outbox');
  const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.eml')).sort() : [];
  for (const file of files.reverse()) {
    const text = fs.readFileSync(path.join(outbox, file), 'utf8');
    if (!new RegExp(`^To: .*${email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'mi').test(text)) continue;
    const match = /Your sign-in code is (\d{4,10})/.exec(text);
    if (match) return match[1];
  }
  throw new Error(`no sign-in code for ${email} in ${outbox}`);
}

/** Signs in over HTTP exactly as a user would: POST /auth/login, read the mailed code, POST /auth/verify. */
export async function signIn(host: TestHost, email: string): Promise<SignedIn> {
  const login = await host.fetch('/identity/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  if (login.status !== 200) throw new Error(`login for ${email} answered ${login.status}: ${await login.text()}`);
  const code = latestCode(host, email);
  const verify = await host.fetch('/identity/auth/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, code }) });
  if (verify.status !== 200) throw new Error(`verify for ${email} answered ${verify.status}: ${await verify.text()}`);
  return (await verify.json()) as SignedIn;
}

/** The bootstrap super admin (BOOTSTRAP_ADMIN_EMAIL, admin@example.com in the sample settings). */
export const signInAdmin = (host: TestHost) => signIn(host, 'admin@example.com');

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
