import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EmailClient } from '@azure/communication-email';
import type { TokenCredential } from '@azure/core-auth';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
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

/**
 * The e-mail service refused to send for now: Azure Communication Services answered 429 (its
 * per-subscription rate limits: a managed domain allows 5 a minute and 10 an hour), or the SMTP
 * server answered a temporary 4xx (421 service not available, 450/451/452 try later). Nothing was
 * sent; the caller says so with a 503 and Retry-After (identity: EMAIL_THROTTLED), never a 500 and
 * never as if the code were on its way.
 */
export class MailThrottled extends Error {
  constructor(
    message: string,
    /** Seconds to wait before trying again: the service's Retry-After, else DEFAULT_THROTTLE_RETRY_SECONDS. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'MailThrottled';
  }
}

/** The wait a throttled answer without its own Retry-After (SMTP has none) is given. */
export const DEFAULT_THROTTLE_RETRY_SECONDS = 60;
/** A Retry-After beyond this is answered as this: a client is not told to wait for hours. */
export const MAX_THROTTLE_RETRY_SECONDS = 3600;

const clampRetry = (seconds: number) => Math.min(MAX_THROTTLE_RETRY_SECONDS, Math.max(1, Math.ceil(seconds)));

/** Seconds from a 429's headers: retry-after-ms / x-ms-retry-after-ms (milliseconds) or Retry-After (seconds or an HTTP date). */
export function retryAfterSeconds(header: (name: string) => string | undefined, now: Date): number {
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const ms = Number(header(name));
    if (header(name) && Number.isFinite(ms) && ms >= 0) return clampRetry(ms / 1000);
  }
  const value = header('retry-after')?.trim();
  if (value) {
    if (/^\d+$/.test(value)) return clampRetry(Number(value));
    const at = Date.parse(value);
    if (Number.isFinite(at)) return clampRetry((at - now.getTime()) / 1000);
  }
  return DEFAULT_THROTTLE_RETRY_SECONDS;
}

/**
 * Turns Azure Communication Services' 429 into MailThrottled at once. Without it the client
 * library's retry policy would sleep for the answer's Retry-After (up to three times) inside the
 * sign-in request: a minute or more of a hanging request, then a 500. Runs per retry, below the
 * retry policy, which rethrows an error that is not a RestError untouched.
 */
export const throttledAsError = (now: () => Date): PipelinePolicy => ({
  name: 'email-throttled-as-error',
  async sendRequest(request, next) {
    const response = await next(request);
    if (response.status !== 429) return response;
    const seconds = retryAfterSeconds((name) => response.headers.get(name) ?? undefined, now());
    throw new MailThrottled(`Azure Communication Services throttled the send (HTTP 429); retry after ${seconds} s`, seconds);
  },
});

/** An Email client of `endpoint` that answers a throttled send with MailThrottled; tests add their own policies (a trusted test certificate). */
export function acsEmailClient(
  endpoint: string,
  credential: TokenCredential,
  now: () => Date,
  additionalPolicies: { policy: PipelinePolicy; position: 'perCall' | 'perRetry' }[] = [],
): EmailClient {
  return new (communicationEmail().EmailClient)(endpoint, credential, {
    additionalPolicies: [{ policy: throttledAsError(now), position: 'perRetry' }, ...additionalPolicies],
  });
}

/** SMTP 4xx (RFC 5321 transient negative completion: 421, 450, 451, 452...) from nodemailer's error, as MailThrottled; anything else as it was. */
export function smtpThrottled(error: unknown): MailThrottled | undefined {
  const code = (error as { responseCode?: unknown }).responseCode;
  if (typeof code !== 'number' || code < 400 || code >= 500) return undefined;
  const reply = String((error as { response?: unknown }).response ?? code).slice(0, 200);
  return new MailThrottled(`the SMTP server refused for now (${reply})`, DEFAULT_THROTTLE_RETRY_SECONDS);
}

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
  if (made.acs?.endpoint !== endpoint) made.acs = { endpoint, client: acsEmailClient(endpoint, platform.get(CREDENTIAL), () => platform.clock.now()) };
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
    await smtpTransport(platform, cfg.SMTP_URL)
      .sendMail(message)
      .catch((error: unknown) => {
        throw smtpThrottled(error) ?? error;
      });
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
