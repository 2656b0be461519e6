import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The API version @azure/communication-email 1.1 sends (its default); another is refused as the service does. */
export const ACS_EMAIL_API_VERSION = '2025-09-01';

export interface SentEmail {
  senderAddress: string;
  recipients: { to: { address: string; displayName?: string }[] };
  content: { subject: string; plainText?: string; html?: string };
}

/** A self-signed certificate for 127.0.0.1, made with openssl for this run (the client library refuses tokens over plain HTTP). */
export function loopbackCertificate(): { cert: string; key: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acs-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    return { cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'), key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A local stand-in for Azure Communication Services Email over HTTPS, speaking the two operations
 * the client library uses: POST /emails:send (202, `Operation-Location`, `{ id, status: Running }`)
 * and GET /emails/operations/{id} (`{ id, status: Succeeded }`). It asks for a bearer token (Entra
 * ID; the resource's keys are disabled) and refuses a sender outside its linked domain's usernames,
 * as the service does. `throttle` makes it answer 429 TooManyRequests with a Retry-After, as the
 * service does past a domain's sending limits.
 */
export async function startAcsEmailServer(options: { token: string; senders: string[]; certificate: { cert: string; key: string } }) {
  const sent: SentEmail[] = [];
  /** The operation id of each accepted send, in order. */
  const ids: string[] = [];
  const operations = new Map<string, { polls: number }>();
  /** While set, every send is answered 429 with these headers, as the service does past its rate limits. */
  let throttle: Record<string, string> | undefined;
  /** Every send request received, accepted or not. */
  let sendRequests = 0;
  const server = https.createServer({ cert: options.certificate.cert, key: options.certificate.key }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://acs');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, code: string, message: string) => send(status, { error: { code, message } });
    if (req.headers.authorization !== `Bearer ${options.token}`) return error(401, 'Unauthorized', 'Denied by the resource provider.');
    if (url.searchParams.get('api-version') !== ACS_EMAIL_API_VERSION)
      return error(400, 'InvalidApiVersion', `api-version ${url.searchParams.get('api-version')}`);
    const operation = /^\/emails\/operations\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && operation) {
      const state = operations.get(operation[1]);
      if (!state) return error(404, 'NotFound', 'No such operation');
      state.polls++;
      return send(200, { id: operation[1], status: 'Succeeded' });
    }
    if (req.method !== 'POST' || url.pathname !== '/emails:send') return error(404, 'NotFound', `${req.method} ${url.pathname}`);
    sendRequests++;
    if (throttle)
      return send(
        429,
        { error: { code: 'TooManyRequests', message: 'The request was throttled: the subscription has exceeded its rate limit for sending email.' } },
        throttle,
      );
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let email: SentEmail;
      try {
        email = JSON.parse(Buffer.concat(chunks).toString()) as SentEmail;
      } catch {
        return error(400, 'BadRequest', 'The body is not JSON');
      }
      if (!email.senderAddress || !email.recipients?.to?.length || !email.content?.subject)
        return error(400, 'BadRequest', 'senderAddress, recipients and content are required');
      if (!options.senders.includes(email.senderAddress))
        return error(400, 'InvalidSenderUserName', `${email.senderAddress} is not a sender of a linked domain`);
      const id = randomUUID();
      operations.set(id, { polls: 0 });
      sent.push(email);
      ids.push(id);
      send(
        202,
        { id, status: 'Running' },
        { 'operation-location': `${base}/emails/operations/${id}?api-version=${ACS_EMAIL_API_VERSION}`, 'retry-after': '1' },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    sent,
    ids,
    /** Answers every send 429 with these headers (`retry-after` and the like) until called with undefined. */
    throttle: (headers: Record<string, string> | undefined) => {
      throttle = headers;
    },
    sendRequests: () => sendRequests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
