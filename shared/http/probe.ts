import { nodeClient } from './node-client';

/**
 * One GET for a health probe through Node's http client, not `fetch`: a cold instance's first
 * health call would otherwise compile fetch's HTTP parser (WebAssembly, about 8 ms here) for a
 * request whose answer is a status and a small body. Rejects with the connection's own error
 * (`connect ECONNREFUSED 127.0.0.1:7071`), or a TimeoutError after `timeoutMs`.
 */
export function httpProbe(url: string, options: { headers?: Record<string, string>; timeoutMs: number }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = nodeClient(target.protocol).get(target, { headers: options.headers, timeout: options.timeoutMs, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        // A probe reads a small body; the rest of a large one is dropped.
        if (size < 65_536) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`timeout: no answer within ${options.timeoutMs} ms`), { name: 'TimeoutError' })));
    req.on('error', reject);
  });
}
