import fs from 'node:fs';
import path from 'node:path';

/**
 * Reading the dev outbox (for the demo's journey and the tests): without SMTP_URL, identity's mailer
 * writes every email as an .eml file in <DATA_DIR>/outbox, named so that sorting the names orders them by time.
 */
export const outboxDir = (dataDir: string) => path.join(dataDir, 'outbox');

/** The .eml files of the outbox, oldest first (full paths); none when nothing was sent yet. */
export function outboxFiles(dataDir: string): string[] {
  const dir = outboxDir(dataDir);
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.eml'))
        .sort()
        .map((f) => path.join(dir, f))
    : [];
}

/** The text of the newest email. */
export function lastEmail(dataDir: string): string {
  const file = outboxFiles(dataDir).at(-1);
  if (!file) throw new Error(`no email in ${outboxDir(dataDir)}`);
  return fs.readFileSync(file, 'utf8');
}

/** Whether an email was written at or after `sinceMs` (give the clock a second of slack). */
export const mailedSince = (dataDir: string, sinceMs: number) => outboxFiles(dataDir).some((file) => fs.statSync(file).mtimeMs >= sinceMs);

/** The newest one-time code mailed to `email`: login emails carry it on a line "Your sign-in code is NNNNNN". */
export function latestCode(dataDir: string, email: string): string {
  const to = new RegExp(`^To: .*${email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'mi');
  for (const file of outboxFiles(dataDir).reverse()) {
    const text = fs.readFileSync(file, 'utf8');
    const match = to.test(text) ? /Your sign-in code is (\d{4,10})/.exec(text) : null;
    if (match) return match[1];
  }
  throw new Error(`no sign-in code for ${email} in ${outboxDir(dataDir)}`);
}
