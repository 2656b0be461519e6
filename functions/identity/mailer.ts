import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import { config } from '../../shared/config';

export interface Email {
  to: string;
  subject: string;
  text: string;
}

export const outboxDir = () => path.join(config().DATA_DIR, 'outbox');

// nodemailer loads with the first email, not with the service: most cold starts send none.
const nodemailer = () => require('nodemailer') as typeof import('nodemailer');

let smtp: { url: string; transport: Transporter } | undefined;
let composer: Transporter | undefined;

function smtpTransport(url: string): Transporter {
  if (smtp?.url !== url) smtp = { url, transport: nodemailer().createTransport(url) };
  return smtp.transport;
}

// Builds the RFC 5322 message without sending it, for the local outbox.
const outboxComposer = () => (composer ??= nodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));

/** Sends through SMTP when SMTP_URL is set; otherwise writes the message as one .eml file in the outbox. */
export async function sendEmail(email: Email): Promise<void> {
  const cfg = config();
  const message = { from: cfg.EMAIL_FROM, to: email.to, subject: email.subject, text: email.text };
  if (cfg.SMTP_URL) {
    await smtpTransport(cfg.SMTP_URL).sendMail(message);
    return;
  }
  const info = await outboxComposer().sendMail(message);
  const dir = outboxDir();
  fs.mkdirSync(dir, { recursive: true });
  // hrtime orders files by sending order even when tests move the wall clock.
  const name = `${String(process.hrtime.bigint()).padStart(20, '0')}-${randomUUID().slice(0, 8)}.eml`;
  const temporary = path.join(dir, `.${name}.tmp`);
  await fs.promises.writeFile(temporary, info.message as Buffer, { mode: 0o600 });
  await fs.promises.rename(temporary, path.join(dir, name));
}

export const describeMailer = () => (config().SMTP_URL ? 'email        SMTP (SMTP_URL)' : `email        outbox ${outboxDir()} (one .eml per message)`);
