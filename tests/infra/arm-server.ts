import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One app setting that is a Key Vault reference: the setting and the secret it names. */
export interface ReferenceSetting {
  setting: string;
  secret: string;
}

interface Site {
  settings: ReferenceSetting[];
  /** Each setting's status as the app last resolved it. */
  status: Map<string, string>;
  /** GETs left before a refresh's results show (statuses read `Initialized` until then). */
  resolvingFor: number;
  refreshes: number;
}

const FIREWALL = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Sql\/servers\/([^/]+)\/firewallRules\/([^/]+)$/;
const SITE =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Web\/sites\/([^/]+)\/config\/configreferences\/appsettings(\/refresh)?$/;

/**
 * A local stand-in for the Azure Resource Manager operations the postprovision hook calls, with
 * ARM's shapes and rules: a bearer token on every call, the api-version each operation exists in,
 * `{ error: { code, message } }` bodies, 404 ResourceNotFound for an unknown resource.
 * - SQL firewall rules: PUT and DELETE (2023-08-01-preview).
 * - App Service Key Vault references: POST .../config/configreferences/appsettings/refresh
 *   (2022-03-01) and GET .../config/configreferences/appsettings (2024-04-01, paged with nextLink,
 *   ApiKVReference items). As in App Service, an app resolves its references when it is deployed
 *   and again only when asked: a secret written afterwards shows only after a refresh, whose
 *   statuses read `Initialized` for the first reads after it.
 * `secretExists` is asked when a site resolves (the Key Vault stand-in's contents); `deny` makes a
 * setting resolve as AccessToKeyVaultDenied, as a missing role assignment does (or, for a number
 * of resolutions, one still propagating).
 */
export async function startArmServer(options: {
  token: string;
  vaultName: string;
  sites: Record<string, ReferenceSetting[]>;
  secretExists: (secret: string) => boolean;
  resolvingReads?: number;
  pageSize?: number;
}) {
  const calls: { method: string; path: string; apiVersion: string | null; body: string }[] = [];
  /** Settings denied access, with how many more resolutions are denied (a role assignment still propagating; Infinity: never granted). */
  const deny = new Map<string, number>();
  const denied = (setting: string) => {
    const left = deny.get(setting) ?? 0;
    if (left > 0) deny.set(setting, left - 1);
    return left > 0;
  };
  const resolve = (site: Site) => {
    for (const { setting, secret } of site.settings)
      site.status.set(setting, denied(setting) ? 'AccessToKeyVaultDenied' : options.secretExists(secret) ? 'Resolved' : 'SecretNotFound');
  };
  const sites = new Map<string, Site>(
    Object.entries(options.sites).map(([name, settings]) => [name, { settings, status: new Map(), resolvingFor: 0, refreshes: 0 }]),
  );
  // Deployed: each app resolved its references then (before any secret existed).
  for (const site of sites.values()) resolve(site);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://arm');
    const apiVersion = url.searchParams.get('api-version');
    calls.push({ method: req.method ?? '', path: url.pathname, apiVersion, body: Buffer.concat(chunks).toString() });
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const error = (status: number, code: string, message: string) => send(status, { error: { code, message } });
    if (req.headers.authorization !== `Bearer ${options.token}`)
      return error(401, 'AuthenticationFailed', "Authentication failed. The 'Authorization' header is missing or invalid.");
    const wrongVersion = (expected: string) =>
      apiVersion !== expected ? (error(400, 'InvalidApiVersionParameter', `The api-version '${apiVersion}' is invalid for this operation.`), true) : false;

    if (FIREWALL.test(url.pathname)) {
      if (wrongVersion('2023-08-01-preview')) return;
      if (req.method === 'PUT') return send(201, { properties: JSON.parse(calls.at(-1)!.body || '{}').properties });
      if (req.method === 'DELETE') return send(200);
      return error(405, 'MethodNotAllowed', req.method ?? '');
    }
    const match = SITE.exec(url.pathname);
    if (!match) return error(404, 'ResourceNotFound', `The resource '${url.pathname}' was not found.`);
    const site = sites.get(match[3]);
    if (!site) return error(404, 'ResourceNotFound', `The Resource 'Microsoft.Web/sites/${match[3]}' under resource group '${match[2]}' was not found.`);
    const sitePath = url.pathname.replace(/\/config\/configreferences\/appsettings(\/refresh)?$/, '');
    if (match[4]) {
      if (req.method !== 'POST') return error(405, 'MethodNotAllowed', req.method ?? '');
      if (wrongVersion('2022-03-01')) return;
      site.refreshes++;
      site.resolvingFor = options.resolvingReads ?? 1;
      resolve(site);
      return send(200);
    }
    if (req.method !== 'GET') return error(405, 'MethodNotAllowed', req.method ?? '');
    if (wrongVersion('2024-04-01')) return;
    const skip = Number(url.searchParams.get('$skiptoken') ?? 0);
    // One read of the list (its first page) moves a pending refresh along.
    const resolving = site.resolvingFor > 0;
    if (resolving && skip === 0) site.resolvingFor--;
    const items = site.settings.map(({ setting, secret }) => {
      const status = resolving ? 'Initialized' : site.status.get(setting)!;
      return {
        id: `${sitePath}/config/configreferences/appsettings/${setting}`,
        name: setting,
        type: 'Microsoft.Web/sites/config/configreferences',
        properties: {
          reference: `@Microsoft.KeyVault(SecretUri=https://${options.vaultName}.vault.azure.net/secrets/${secret}/)`,
          status,
          vaultName: options.vaultName,
          secretName: secret,
          identityType: 'UserAssigned',
          source: 'KeyVault',
          details:
            status === 'Resolved'
              ? 'Reference has been successfully resolved.'
              : status === 'Initialized'
                ? 'Reference is being resolved.'
                : status === 'SecretNotFound'
                  ? 'The secret could not be found in the vault.'
                  : "Key Vault reference was not able to be resolved because site was denied access to Key Vault reference's vault.",
        },
      };
    });
    const size = options.pageSize ?? 1000;
    const next = skip + size < items.length ? `http://${req.headers.host}${url.pathname}?api-version=${apiVersion}&$skiptoken=${skip + size}` : null;
    send(200, { value: items.slice(skip, skip + size), nextLink: next });
  }
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    /** The setting resolves as AccessToKeyVaultDenied for its next `resolutions` resolutions (by default for ever). */
    deny: (setting: string, resolutions = Infinity) => deny.set(setting, resolutions),
    /** What each app has resolved now (without the `Initialized` of a pending refresh). */
    statuses: (app: string) => Object.fromEntries(sites.get(app)!.status),
    refreshes: (app: string) => sites.get(app)!.refreshes,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
