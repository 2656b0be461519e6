import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One app setting that is a Key Vault reference: the setting and the secret it names. */
export interface ReferenceSetting {
  setting: string;
  secret: string;
}

interface Site {
  name: string;
  settings: ReferenceSetting[];
  /** Each setting's status as the app last resolved it. */
  status: Map<string, string>;
  /** GETs left before a refresh's results show (statuses read `Initialized` until then). */
  resolvingFor: number;
  refreshes: number;
}

const FIREWALL = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Sql\/servers\/([^/]+)\/firewallRules\/([^/]+)$/;
const ROLE_ASSIGNMENT =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)\/secrets\/([^/]+)\/providers\/Microsoft\.Authorization\/roleAssignments\/([^/]+)$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Key Vault Secrets User. */
const SECRETS_USER = '4633458b-17de-408a-b874-0445c86b69e6';

/** A role assignment as the fake holds it. */
export interface RoleAssignment {
  name: string;
  scope: string;
  principalId: string;
  roleDefinitionId: string;
}

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
 * - Role assignments on a Key Vault secret: PUT {secret id}/providers/Microsoft.Authorization/
 *   roleAssignments/{GUID} (2022-04-01), body { properties: { roleDefinitionId, principalId,
 *   principalType } }. As ARM does: 404 ResourceNotFound when the secret does not exist (a scope
 *   must), 400 PrincipalNotFound for a principal the directory does not know (yet:
 *   `principalNotFoundFirst`), 409 RoleAssignmentExists when the principal already holds the role
 *   on that scope under another name, 409 RoleAssignmentUpdateNotPermitted when the name is taken
 *   by another principal or role, 201 with the assignment otherwise (also when it exists as asked).
 * `secretExists` is asked when a site resolves (the Key Vault stand-in's contents); `deny` makes a
 * setting resolve as AccessToKeyVaultDenied, as a missing role assignment does (or, for a number
 * of resolutions, one still propagating). With `sitePrincipals` (each site's identity), a site
 * reads a secret only when its principal holds Key Vault Secrets User on that secret, as Key Vault
 * with RBAC authorization decides: otherwise AccessToKeyVaultDenied.
 */
export async function startArmServer(options: {
  token: string;
  vaultName: string;
  sites: Record<string, ReferenceSetting[]>;
  secretExists: (secret: string) => boolean;
  resolvingReads?: number;
  pageSize?: number;
  /** The principal id each site runs as (its managed identity). */
  sitePrincipals?: Record<string, string>;
  /** The principals the directory knows (any GUID when not given). */
  principals?: string[];
  /** Answers the first role assignment PUTs 400 PrincipalNotFound (a new identity not replicated yet). */
  principalNotFoundFirst?: number;
  /** Assignments that exist already (made by an earlier deployment, under their own names). */
  assignments?: RoleAssignment[];
}) {
  const assignments: RoleAssignment[] = [...(options.assignments ?? [])];
  let principalNotFound = options.principalNotFoundFirst ?? 0;
  const secretScope = (sub: string, rg: string, secret: string) =>
    `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.KeyVault/vaults/${options.vaultName}/secrets/${secret}`;
  const mayRead = (site: string, secret: string) => {
    const principal = options.sitePrincipals?.[site];
    if (principal === undefined) return true;
    return assignments.some(
      (a) =>
        a.principalId === principal && a.roleDefinitionId.endsWith(`/${SECRETS_USER}`) && a.scope.endsWith(`/vaults/${options.vaultName}/secrets/${secret}`),
    );
  };
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
      site.status.set(
        setting,
        denied(setting) || !mayRead(site.name, secret) ? 'AccessToKeyVaultDenied' : options.secretExists(secret) ? 'Resolved' : 'SecretNotFound',
      );
  };
  const sites = new Map<string, Site>(
    Object.entries(options.sites).map(([name, settings]) => [name, { name, settings, status: new Map(), resolvingFor: 0, refreshes: 0 }]),
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
    const assignment = ROLE_ASSIGNMENT.exec(url.pathname);
    if (assignment) {
      const [, sub, rg, vault, secret, name] = assignment;
      if (req.method !== 'PUT') return error(405, 'MethodNotAllowed', req.method ?? '');
      if (wrongVersion('2022-04-01')) return;
      if (vault !== options.vaultName || !options.secretExists(secret))
        return error(
          404,
          'ResourceNotFound',
          `The Resource 'Microsoft.KeyVault/vaults/${vault}/secrets/${secret}' under resource group '${rg}' was not found.`,
        );
      if (!GUID.test(name))
        return error(400, 'InvalidRoleAssignmentId', `The role assignment ID '${name}' is not valid. The role assignment ID must be a GUID.`);
      let properties: { roleDefinitionId?: string; principalId?: string; principalType?: string } | undefined;
      try {
        properties = (JSON.parse(calls.at(-1)!.body) as { properties?: typeof properties }).properties;
      } catch {
        return error(400, 'InvalidRequestContent', 'The request content was invalid and could not be deserialized.');
      }
      const { roleDefinitionId, principalId, principalType } = properties ?? {};
      if (!roleDefinitionId || !new RegExp(`^/subscriptions/${sub}/providers/Microsoft\\.Authorization/roleDefinitions/[0-9a-f-]{36}$`).test(roleDefinitionId))
        return error(400, 'InvalidRoleDefinitionId', `The role definition ID '${roleDefinitionId}' is not valid.`);
      if (!principalId || !GUID.test(principalId)) return error(400, 'InvalidPrincipalId', 'A valid principal ID must be provided for role assignment.');
      if (principalNotFound > 0 || (options.principals && !options.principals.includes(principalId))) {
        if (principalNotFound > 0) principalNotFound--;
        return error(
          400,
          'PrincipalNotFound',
          `Principal ${principalId.replace(/-/g, '')} does not exist in the directory. Check that you have the correct principal ID. If you are creating this principal and then immediately assigning a role, this error might be related to a replication delay. In this case, set the role assignment principalType property to a value, such as ServicePrincipal, User, or Group.  See https://aka.ms/docs-principaltype`,
        );
      }
      const scope = secretScope(sub, rg, secret);
      const named = assignments.find((a) => a.name === name);
      if (named && (named.principalId !== principalId || named.roleDefinitionId !== roleDefinitionId || named.scope !== scope))
        return error(409, 'RoleAssignmentUpdateNotPermitted', 'Tenant ID, application ID, principal ID, and scope are not allowed to be updated.');
      if (!named && assignments.some((a) => a.scope === scope && a.principalId === principalId && a.roleDefinitionId === roleDefinitionId))
        return error(409, 'RoleAssignmentExists', 'The role assignment already exists.');
      if (!named) assignments.push({ name, scope, principalId, roleDefinitionId });
      return send(201, {
        properties: { roleDefinitionId, principalId, principalType: principalType ?? 'Unknown', scope },
        id: url.pathname,
        type: 'Microsoft.Authorization/roleAssignments',
        name,
      });
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
    /** Every role assignment that exists now. */
    assignments,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
