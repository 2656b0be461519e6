import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { bareHost, type Vetted } from './endpoint-url';

export interface SendLimits {
  /** The whole exchange, connection to the last byte read. */
  timeoutMs: number;
  /** Bytes of the answer read at most (the rest is not read). */
  maxResponseBytes: number;
}

export const SEND_LIMITS: SendLimits = { timeoutMs: 10_000, maxResponseBytes: 64 * 1024 };
/** How much of the answer's body a delivery attempt keeps. */
export const EXCERPT_CHARS = 500;

export interface SendResult {
  /** 2xx: delivered. A 3xx is a failure (redirects are not followed), like 4xx, 5xx and errors. */
  ok: boolean;
  statusCode: number | null;
  excerpt: string | null;
  error: string | null;
  durationMs: number;
}

/** A resolver that answers the vetted address whatever it is asked: the connection goes where the check looked. */
function pinned(vetted: Vetted): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: vetted.address, family: vetted.family }]);
    else callback(null, vetted.address, vetted.family);
  }) as unknown as LookupFunction;
}

/**
 * POSTs `body` to `url`, connecting to `vetted` (the address resolved and checked just before), so a
 * DNS answer that changes between the check and the connection cannot move it: TLS still checks the
 * certificate against the URL's host name (SNI too). No redirect is followed, the answer is read up
 * to `maxResponseBytes`, and the whole exchange is cut at `timeoutMs`. Never throws.
 */
export function postJson(url: URL, vetted: Vetted, headers: Record<string, string>, body: string, limits: SendLimits = SEND_LIMITS): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: bareHost(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinned(vetted),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const status = response.statusCode ?? null;
          const text = Buffer.concat(chunks).subarray(0, limits.maxResponseBytes).toString('utf8');
          const ok = status !== null && status >= 200 && status < 300;
          const error = ok
            ? null
            : status !== null && status >= 300 && status < 400
              ? `redirect to ${response.headers.location ?? '(no location)'} not followed`
              : null;
          finish({ ok, statusCode: status, excerpt: text ? text.slice(0, EXCERPT_CHARS) : null, error });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= limits.maxResponseBytes) done();
        });
        response.on('end', done);
        response.on('error', (error) => finish({ ok: false, statusCode: response.statusCode ?? null, excerpt: null, error: error.message }));
      },
    );
    const deadline = setTimeout(() => {
      finish({ ok: false, statusCode: null, excerpt: null, error: `no answer within ${limits.timeoutMs} ms` });
      request.destroy();
    }, limits.timeoutMs);
    request.on('error', (error) => finish({ ok: false, statusCode: null, excerpt: null, error: error.message.slice(0, 300) }));
    request.end(body);
  });
}
