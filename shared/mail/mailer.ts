import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EmailClient } from '@azure/communication-email';
import type { Transporter } from 'nodemailer';
import { CREDENTIAL } from '../azure-credential';
import { member, type Platform } from '../platform';
import { mailConfig, type MailConfig } from './settings';

export interface Email {
  to: string;
  subject: string;
  text: string;
}

/** How a service sends email: its context hands it in (`ctx.mailer`). */
export interface Mailer {
  send(email: Email): Promise<void>;
  /** The dev host's banner line: where the codes go. */
  describe(): string;
}

const outboxDir = (cfg: MailConfig) => path.join(cfg.DATA_DIR, 'outbox');

// The mail libraries load with the first email, not with the service: most cold starts send none.
const nodemailer = () => require('nodemailer') as typeof import('nodemailer');
const communicationEmail = () => require('@azure/communication-email') as typeof import('@azure/communication-email');

/** The platform's mail clients, each made for the setting it was made from (a changed setting makes a new one). */
interface Transports {
  smtp?: { url: string; transport: Transporter };
  composer?: Transporter;
  acs?: { endpoint: string; client: EmailClient };
}
const TRANSPORTS = member(
  'mail transports',
  (): Transports => ({}),
  (made) => made.smtp?.transport.close(),
);

function smtpTransport(platform: Platform, url: string): Transporter {
  const made = platform.get(TRANSPORTS);
  if (made.smtp?.url !== url) made.smtp = { url, transport: nodemailer().createTransport(url) };
  return made.smtp.transport;
}

// Builds the RFC 5322 message without sending it, for the local outbox.
function outboxComposer(platform: Platform): Transporter {
  const made = platform.get(TRANSPORTS);
  return (made.composer ??= nodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
}

/** The Azure Communication Services client of EMAIL_ACS_ENDPOINT, signed in as the app's managed identity. */
function acsClient(platform: Platform, endpoint: string): EmailClient {
  const made = platform.get(TRANSPORTS);
  if (made.acs?.endpoint !== endpoint) made.acs = { endpoint, client: new (communicationEmail().EmailClient)(endpoint, platform.get(CREDENTIAL)) };
  return made.acs.client;
}

/**
 * The client `platform` uses for EMAIL_ACS_ENDPOINT: tests hand in one pointed at a local stand-in
 * of the service (with their own credential and certificate).
 */
export function useEmailClient(platform: Platform, endpoint: string, client: EmailClient): void {
  platform.get(TRANSPORTS).acs = { endpoint, client };
}

/** `Name <address>` or a bare address, as EMAIL_FROM holds it. */
export function parseFrom(from: string): { address: string; displayName?: string } {
  const text = from.trim();
  const open = text.lastIndexOf('<');
  const address = open >= 0 && text.endsWith('>') ? text.slice(open + 1, -1) : '';
  if (!/^[^<>\s@]+@[^<>\s]+$/.test(address)) return { address: text };
  const displayName = text.slice(0, open).trim().replace(/^"|"$/g, '').trim();
  return { address, ...(displayName ? { displayName } : {}) };
}

/**
 * Queues the email with Azure Communication Services and answers the id of the send operation.
 * The send is accepted (202) once the service has queued it, which is what the sign-in route waits
 * for; delivery itself is not awaited (polling until done would add seconds to every sign-in, and a
 * later bounce would not be caught either). A refused request (unknown sender, no permission)
 * throws: an accepted one starts as running, whatever its body says (the client library reads the
 * state of an operation with an Operation-Location only from polling it).
 */
export async function sendWithAcs(client: EmailClient, from: string, email: Email): Promise<string> {
  const poller = await client.beginSend({
    senderAddress: parseFrom(from).address,
    content: { subject: email.subject, plainText: email.text },
    recipients: { to: [{ address: email.to }] },
  });
  return poller.getOperationState().result?.id ?? 'accepted';
}

/**
 * Sends through SMTP when SMTP_URL is set, else through Azure Communication Services when
 * EMAIL_ACS_ENDPOINT is set (what the Bicep provisions), else writes the message as one .eml file
 * in the outbox (laptops and tests). The settings are read at each send, so a platform whose
 * settings change sends by the new ones.
 */
async function sendEmail(platform: Platform, email: Email): Promise<void> {
  const cfg = mailConfig(platform);
  const message = { from: cfg.EMAIL_FROM, to: email.to, subject: email.subject, text: email.text };
  if (cfg.SMTP_URL) {
    await smtpTransport(platform, cfg.SMTP_URL).sendMail(message);
    return;
  }
  if (cfg.EMAIL_ACS_ENDPOINT) {
    await sendWithAcs(acsClient(platform, cfg.EMAIL_ACS_ENDPOINT), cfg.EMAIL_FROM, email);
    return;
  }
  const info = await outboxComposer(platform).sendMail(message);
  const dir = outboxDir(cfg);
  fs.mkdirSync(dir, { recursive: true });
  // hrtime orders files by sending order even when tests move the wall clock.
  const name = `${String(process.hrtime.bigint()).padStart(20, '0')}-${randomUUID().slice(0, 8)}.eml`;
  const temporary = path.join(dir, `.${name}.tmp`);
  await fs.promises.writeFile(temporary, info.message as Buffer, { mode: 0o600 });
  await fs.promises.rename(temporary, path.join(dir, name));
}

function describeMailer(cfg: MailConfig): string {
  if (cfg.SMTP_URL) return 'email        SMTP (SMTP_URL)';
  if (cfg.EMAIL_ACS_ENDPOINT) return `email        Azure Communication Services ${cfg.EMAIL_ACS_ENDPOINT} (managed identity), from ${cfg.EMAIL_FROM}`;
  return `email        outbox ${outboxDir(cfg)} (one .eml per message)`;
}

/** The mailer on `platform`: its clients are the platform's, made on first use and closed with it. */
export const mailerOn = (platform: Platform): Mailer => ({
  send: (email) => sendEmail(platform, email),
  describe: () => describeMailer(mailConfig(platform)),
});
