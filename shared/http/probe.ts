import http from 'node:http';
import https from 'node:https';

/**
 * One GET through Node's http client, not `fetch` or the undici package: a cold instance's first
 * call would otherwise compile fetch's HTTP parser (WebAssembly, about 8 ms here) or load undici
 * (about 25 ms) for a request whose answer is a status and a small body. Health probes go without
 * an agent (a new connection each); the session check with the platform's kept-alive agents.
 * Rejects with the connection's own error (`connect ECONNREFUSED 127.0.0.1:7071`), or a
 * TimeoutError after `timeoutMs` (no answer, or the whole exchange longer).
 */
export function httpProbe(
  url: string,
  options: { headers?: Record<string, string>; timeoutMs: number; agent?: { http: http.Agent; https: https.Agent } },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const agent = options.agent ? (secure ? options.agent.https : options.agent.http) : false;
    const req = (secure ? https : http).get(target, { headers: options.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        // A probe reads a small body; the rest of a large one is dropped.
        if (size < 65_536) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    // One deadline for the whole exchange: connection, answer and body.
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error(`timeout: no answer within ${options.timeoutMs} ms`), { name: 'TimeoutError' })),
      options.timeoutMs,
    );
    req.on('close', () => clearTimeout(timer));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Kept-alive agents, one pair per platform (shared/auth/live-session.ts). */
export const keptAliveAgents = (): { http: http.Agent; https: https.Agent } => ({
  http: new http.Agent({ keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 64 }),
});
