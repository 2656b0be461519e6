import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Key Vault secrets REST API (GET and PUT /secrets/{name}?api-version=7.4),
 * with its JSON shapes: { value, id, attributes, tags } and 404 { error: { code: "SecretNotFound" } }.
 * Keeps every version, so tests can see what was written in which order. `forbidFirst` answers the
 * first requests 403 ForbiddenByRbac, as a vault does while a new role assignment propagates.
 */
export async function startKeyVaultServer(expectedToken: string, options: { forbidFirst?: number } = {}) {
  const versions = new Map<string, { value: string; tags: Record<string, string> }[]>();
  const writes: string[] = [];
  let forbidden = options.forbidFirst ?? 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://vault');
    const match = /^\/secrets\/([A-Za-z0-9-]{1,127})$/.exec(url.pathname);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${expectedToken}`)
      return send(401, { error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } });
    if (forbidden > 0) {
      forbidden--;
      return send(403, {
        error: {
          code: 'Forbidden',
          message: 'Caller is not authorized to perform action on resource. Action: Microsoft.KeyVault/vaults/secrets/getSecret/action',
          innererror: { code: 'ForbiddenByRbac' },
        },
      });
    }
    if (url.searchParams.get('api-version') !== '7.4') return send(400, { error: { code: 'BadParameter', message: 'api-version' } });
    if (!match) return send(404, { error: { code: 'NotFound', message: 'Not found' } });
    const name = match[1];
    if (req.method === 'GET') {
      const latest = versions.get(name)?.at(-1);
      if (!latest) return send(404, { error: { code: 'SecretNotFound', message: `A secret with (name/id) ${name} was not found in this key vault.` } });
      return send(200, {
        value: latest.value,
        id: `http://vault/secrets/${name}/${versions.get(name)!.length}`,
        attributes: { enabled: true },
        tags: latest.tags,
      });
    }
    if (req.method === 'PUT') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { value, tags = {} } = JSON.parse(body) as { value: string; tags?: Record<string, string> };
        versions.set(name, [...(versions.get(name) ?? []), { value, tags }]);
        writes.push(name);
        send(200, { value, id: `http://vault/secrets/${name}/${versions.get(name)!.length}`, attributes: { enabled: true }, tags });
      });
      return;
    }
    send(405, { error: { code: 'MethodNotAllowed', message: req.method } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    latest: (name: string) => versions.get(name)?.at(-1),
    versionCount: (name: string) => versions.get(name)?.length ?? 0,
    writes,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
