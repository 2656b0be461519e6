/**
 * Least privilege per app, read from the ARM template the Bicep compiler makes of infra/main.bicep:
 * every role assignment of every module is evaluated (tests/infra/arm-expressions.ts) into
 * (app identity, scope, role) rows, and the matrix app x secret / container / queue / table they
 * make must equal the table in docs/deploy.md ("Permissions: what each app may use"), parsed here,
 * so the docs and the template cannot disagree. The secrets column comes from the
 * KEY_VAULT_READERS output instead: a secret's readers are granted by the command that writes
 * it (scripts/secret-readers.ts, tested in secret-readers.test.ts), never by the deployment. The matrix is also held against the code: the
 * secrets each service reads as Key Vault references, and the storage names its settings default to.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Setting } from '../../shared/config';
import { SETTINGS } from '../../functions/settings';
import { SQL_WORK_TABLE } from '../../shared/sql/idle';
import { PROJECT_ROOT } from '../../devhost/paths';
import { compiledInfra, describeWithBicep, moduleDeployment, moduleTemplate, type ArmTemplate } from '../helpers/bicep';
import { evaluate, instances, moduleScope, topScope } from '../../scripts/arm-expressions';

const ROLES = {
  secretsUser: '4633458b-17de-408a-b874-0445c86b69e6',
  secretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7',
  blobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe',
  queueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88',
  tableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3',
  blobDelegator: 'db58b8e5-c6ad-4a2a-8342-4190687cbf4a',
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb',
  communicationAndEmailServiceOwner: '09976791-48a7-449e-bb21-39d1a415f350',
};
const ROLE_NAME = Object.fromEntries(Object.entries(ROLES).map(([name, id]) => [id, name]));

interface Assignment {
  /** The app whose identity holds it (managed-identity-<app>), or the principal as written. */
  app: string;
  role: string;
  /** Resource type and names, e.g. Microsoft.KeyVault/vaults/secrets/kv-token/jwt-signing-keys. */
  scope: string;
}

interface AppAccess {
  secrets: string[];
  /** The storage accounts the app's identity holds roles on as a whole: its own host account (AzureWebJobsStorage), and nothing else. */
  hostAccounts: string[];
  containers: string[];
  queues: string[];
  tables: string[];
  sql: boolean;
  email: boolean;
  delegationKey: boolean;
}

/** Every role assignment of every module of main.bicep, evaluated (with main's parameters at their defaults, overridden by `given`). */
function roleAssignments(main: ArmTemplate, given: Record<string, unknown> = {}): Assignment[] {
  const top = topScope(main, { principalId: 'deployer', ...given });
  const rows: Assignment[] = [];
  for (const deployment of main.resources.filter((r) => r.type === 'Microsoft.Resources/deployments')) {
    for (const at of instances(deployment, top)) {
      const inner = moduleScope(deployment, top, at.copyIndex['']);
      for (const resource of (deployment.properties.template as ArmTemplate).resources) {
        if (resource.type !== 'Microsoft.Authorization/roleAssignments') continue;
        for (const instance of instances(resource, inner)) {
          const properties = evaluate(resource.properties, instance);
          const principal = String(properties.principalId);
          const identity = /^principalId\(managed-identity-(\w+)\)$/.exec(principal);
          rows.push({
            app: identity ? identity[1] : principal,
            role: ROLE_NAME[String(properties.roleDefinitionId).split('/').pop()!] ?? properties.roleDefinitionId,
            scope: evaluate(resource.scope, instance),
          });
        }
      }
    }
  }
  return rows;
}

/** An array output of main.bicep (a copy loop), evaluated. */
function arrayOutput(main: ArmTemplate, name: string, top: ReturnType<typeof topScope>): any[] {
  const output = main.outputs![name] as any;
  return Array.from({ length: evaluate(output.copy.count, top) }, (_, i) => evaluate(output.copy.input, { ...top, copyIndex: { '': i } }));
}

/** KEY_VAULT_READERS: per app, the identity that reads and the secrets it reads. */
function secretReaders(main: ArmTemplate, given: Record<string, unknown> = {}): { app: string; principalId: string; secrets: string[] }[] {
  return arrayOutput(main, 'KEY_VAULT_READERS', topScope(main, { principalId: 'deployer', ...given }));
}

/** The apps' access, from the role assignments and the KEY_VAULT_READERS and SQL_APP_IDENTITIES outputs. */
function accessFromTemplate(main: ArmTemplate, given: Record<string, unknown> = {}): Record<string, AppAccess> {
  const rows = roleAssignments(main, given);
  const top = topScope(main, given);
  const apps = (evaluate(main.variables!.apps, top) as { name: string }[]).map((app) => app.name);
  const sqlUsers = arrayOutput(main, 'SQL_APP_IDENTITIES', top) as string[];
  const readers = secretReaders(main, given);
  // Each entry is its app's own identity, in the apps' order.
  expect(readers.map((reader) => [reader.app, reader.principalId])).toEqual(apps.map((app) => [app, `principalId(managed-identity-${app})`]));
  const names = (app: string, role: string, type: string) =>
    rows.filter((r) => r.app === app && r.role === role && r.scope.startsWith(`${type}/`)).map((r) => r.scope.split('/').pop()!);
  return Object.fromEntries(
    apps.map((app, i) => [
      app,
      {
        secrets: readers[i].secrets,
        hostAccounts: rows
          .filter((r) => r.app === app && /^Microsoft\.Storage\/storageAccounts\/[^/]+$/.test(r.scope) && r.role !== 'blobDelegator')
          .map((r) => `${r.scope.split('/').pop()} ${r.role}`),
        containers: names(app, 'blobDataContributor', 'Microsoft.Storage/storageAccounts/blobServices/containers'),
        queues: names(app, 'queueDataContributor', 'Microsoft.Storage/storageAccounts/queueServices/queues'),
        tables: names(app, 'tableDataContributor', 'Microsoft.Storage/storageAccounts/tableServices/tables'),
        sql: sqlUsers[i] !== '',
        email: names(app, 'communicationAndEmailServiceOwner', 'Microsoft.Communication/communicationServices').length === 1,
        delegationKey: names(app, 'blobDelegator', 'Microsoft.Storage/storageAccounts').length === 1,
      },
    ]),
  );
}

const DOCS = path.join(PROJECT_ROOT, 'docs', 'deploy.md');
const HEADING = '## Permissions: what each app may use';

/** The permission table of docs/deploy.md: one row per app, names in backticks, yes/no cells. */
export function docsMatrix(markdown = fs.readFileSync(DOCS, 'utf8')): Record<string, AppAccess> {
  const section = markdown.split(HEADING)[1];
  if (section === undefined) throw new Error(`docs/deploy.md has no "${HEADING}"`);
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| App '));
  if (start < 0) throw new Error('no table starting with "| App " under the permissions heading');
  const header = lines[start]
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
  const column = (title: string) => {
    const index = header.findIndex((cell) => cell.startsWith(title));
    if (index < 0) throw new Error(`no column "${title}" in ${header.join(' | ')}`);
    return index;
  };
  const cols = {
    secrets: column('Key Vault secrets'),
    hostAccounts: column('Own host storage account'),
    containers: column('Blob containers'),
    queues: column('Queues'),
    tables: column('Tables'),
    sql: column('SQL'),
    email: column('Sends e-mail'),
    delegationKey: column('User delegation key'),
  };
  const rows: Record<string, AppAccess> = {};
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const listed = (i: number) => [...cells[i].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const yes = (i: number) => {
      if (!/^(yes|no)\b/.test(cells[i])) throw new Error(`"${cells[i]}": yes or no`);
      return cells[i].startsWith('yes');
    };
    const app = /^`?(\w+)`?/.exec(cells[0])![1];
    rows[app] = {
      secrets: listed(cols.secrets),
      // The account is named in the cell's first backticks; its roles follow (Storage Blob and Table Data Contributor).
      hostAccounts: listed(cols.hostAccounts)
        .slice(0, 1)
        .map((account) => account.replace('<token>', 'token'))
        .flatMap((account) => ['blobDataContributor', 'tableDataContributor'].map((role) => `${account} ${role}`)),
      containers: listed(cols.containers),
      queues: listed(cols.queues),
      tables: listed(cols.tables),
      sql: yes(cols.sql),
      email: yes(cols.email),
      delegationKey: yes(cols.delegationKey),
    };
  }
  return rows;
}

const sorted = (matrix: Record<string, AppAccess>) =>
  Object.fromEntries(
    Object.entries(matrix).map(([app, a]) => [
      app,
      {
        ...a,
        secrets: [...a.secrets].sort(),
        hostAccounts: [...a.hostAccounts].sort(),
        containers: [...a.containers].sort(),
        queues: [...a.queues].sort(),
        tables: [...a.tables].sort(),
      },
    ]),
  );
const defaultOf = (name: string) => (SETTINGS as Record<string, Setting<unknown>>)[name].default as string;

describe('the permission table of docs/deploy.md', () => {
  it('is read: one row per app, with the names in backticks', () => {
    const docs = docsMatrix();
    expect(Object.keys(docs)).toEqual(['identity', 'payment', 'orchestrator', 'visual']);
    expect(docs.visual.secrets).toContain('visual-api-token');
  });

  it('refuses a malformed yes/no cell (a table that cannot be read fails, it is never skipped)', () => {
    const text = fs.readFileSync(DOCS, 'utf8');
    const broken = text.replace(/(\n\| `?visual`?[^\n]*\| )(yes|no)( \|\n)/, '$1maybe$3');
    expect(broken).not.toBe(text);
    expect(() => docsMatrix(broken)).toThrow(/yes or no/);
  });
});

describeWithBicep('least privilege per app, in the compiled template', (bicep) => {
  let main: ArmTemplate;
  let matrix: Record<string, AppAccess>;
  beforeAll(() => {
    main = compiledInfra(bicep);
    matrix = accessFromTemplate(main);
  });

  it('gives each app an identity of its own, which it runs as, reads its references with and deploys its package with', () => {
    const apps = moduleDeployment(main, 'functionApps');
    expect(apps.properties.parameters.identityId.value).toContain("format('managed-identity-{0}', variables('apps')[copyIndex()].name)");
    const site = moduleTemplate(main, 'functionApps').resources.find((r) => r.type === 'Microsoft.Web/sites')!;
    expect(site.properties.keyVaultReferenceIdentity).toBe("[parameters('identityId')]");
    expect(site.properties.functionAppConfig.deployment.storage.authentication).toEqual({
      type: 'UserAssignedIdentity',
      userAssignedIdentityResourceId: "[parameters('identityId')]",
    });
    expect(moduleDeployment(main, 'appSettings').properties.parameters.identityClientId.value).toContain(
      "format('managed-identity-{0}', variables('apps')[copyIndex()].name)",
    );
    const identities = moduleDeployment(main, 'identities');
    expect(identities.properties.parameters.name.value).toBe("[format('id-{0}-{1}', variables('apps')[copyIndex()].name, variables('resourceToken'))]");
  });

  it('matches the table in docs/deploy.md, app by app', () => {
    expect(sorted(matrix)).toEqual(sorted(docsMatrix()));
  });

  it("the visual app reads no JWT key, no Stripe key, no service-token secret, no other app's host keys or package, and is no database user", () => {
    expect(matrix.visual.secrets.sort()).toEqual(['quickchart-api-key', 'visual-api-token']);
    expect(matrix.visual.hostAccounts.sort()).toEqual(['sthvistoken blobDataContributor', 'sthvistoken tableDataContributor']);
    expect(matrix.visual.containers).toEqual(['chart-cache']);
    expect(matrix.visual).toMatchObject({ queues: [], tables: [], sql: false, email: false, delegationKey: false });
  });

  it('gives each app a host storage account of its own (AzureWebJobsStorage: host keys, timer locks, its package), which no other identity may use', () => {
    const owners = new Map<string, Set<string>>();
    for (const [app, access] of Object.entries(matrix))
      for (const row of access.hostAccounts) owners.set(row.split(' ')[0], (owners.get(row.split(' ')[0]) ?? new Set()).add(app));
    expect([...owners.values()].map((apps) => [...apps])).toEqual(Object.keys(matrix).map((app) => [app]));
    // The app's own account holds its deployment package; the app deploys from it with its own identity.
    const hostStorage = moduleDeployment(main, 'hostStorage');
    expect(hostStorage.properties.parameters.principalId.value).toContain("format('managed-identity-{0}', variables('apps')[copyIndex()].name)");
    expect(hostStorage.properties.parameters.deploymentContainer.value).toBe("[format('deploy-{0}', variables('apps')[copyIndex()].name)]");
    expect(moduleDeployment(main, 'functionApps').properties.parameters.deploymentContainerUrl.value).toMatch(
      /^\[reference\(.*format\('host-storage-\{0\}', variables\('apps'\)\[copyIndex\(\)\]\.name\).*\.outputs\.deploymentContainerUrl\.value\]$/,
    );
    const created = moduleTemplate(main, 'hostStorage').resources.find((r) => r.type === 'Microsoft.Storage/storageAccounts/blobServices/containers')!;
    expect(created.copy!.count).toBe("[length(concat(variables('hostContainers'), createArray(parameters('deploymentContainer'))))]");
    expect(moduleTemplate(main, 'hostStorage').variables!.hostContainers).toEqual(['azure-webjobs-hosts', 'azure-webjobs-secrets']);
    // Each app's AzureWebJobsStorage is its own account; the data account is PLATFORM_STORAGE.
    const settings = moduleDeployment(main, 'appSettings').properties.parameters;
    expect(settings.hostStorageAccountName.value).toMatch(/format\('host-storage-\{0\}', variables\('apps'\)\[copyIndex\(\)\]\.name\).*\.outputs\.name\.value/);
    expect(settings.dataStorageAccountName.value).toMatch(/'storage'\).*\.outputs\.name\.value/);
    const plain = moduleTemplate(main, 'appSettings').variables!.plainSettingsByService as Record<string, Record<string, string>>;
    expect(plain.all.AzureWebJobsStorage__accountName).toBe("[parameters('hostStorageAccountName')]");
    expect(plain.all.PLATFORM_STORAGE__accountName).toBe("[parameters('dataStorageAccountName')]");
    expect(plain.orchestrator.PLATFORM_STORAGE__queueServiceUri).toBe("[parameters('dataQueueEndpoint')]");
  });

  it('names every host storage account within 24 lower-case letters and digits', () => {
    for (const singleApp of [false, true]) {
      const apps = evaluate(main.variables!.apps, topScope(main, { principalId: 'deployer', singleApp })) as { hostStorageName: string }[];
      for (const app of apps) expect(app.hostStorageName.replace('token', 'abcdefghijklm')).toMatch(/^[a-z0-9]{3,24}$/);
    }
    // resourceToken is uniqueString's 13 characters, lower-cased.
    expect(main.variables!.resourceToken).toMatch(/^\[toLower\(uniqueString\(/);
  });

  it('grants no data role on the whole vault or the whole storage account; only the deployer writes secrets', () => {
    const rows = roleAssignments(main);
    // On the data account as a whole: only the delegation key (the host accounts are each one app's own).
    const onAccount = rows.filter((r) => /^Microsoft\.Storage\/storageAccounts\/[^/]+$/.test(r.scope) && !/\/sth[a-z]+token$/.test(r.scope));
    expect(onAccount.map((r) => [r.app, r.role, r.scope])).toEqual([['orchestrator', 'blobDelegator', 'Microsoft.Storage/storageAccounts/sttoken']]);
    const onVault = rows.filter((r) => /^Microsoft\.KeyVault\/vaults\/[^/]+$/.test(r.scope));
    expect(onVault.map((r) => [r.app, r.role])).toEqual([['deployer', 'secretsOfficer']]);
    // No deployment assigns a role on a secret: on a first deployment none exists yet, and ARM
    // refuses a role assignment on a scope that does not exist (the writer grants: secret-readers.ts).
    expect(rows.filter((r) => r.scope.startsWith('Microsoft.KeyVault/vaults/secrets'))).toEqual([]);
    expect(rows.filter((r) => r.scope.startsWith('Microsoft.KeyVault/'))).toHaveLength(1);
    // Application Insights: every app publishes its telemetry, nothing more.
    expect(
      rows
        .filter((r) => r.role === 'monitoringMetricsPublisher')
        .map((r) => r.app)
        .sort(),
    ).toEqual(['identity', 'orchestrator', 'payment', 'visual']);
  });

  it('gives each service exactly the secrets it reads as Key Vault references (app-settings.bicep)', () => {
    const references = moduleTemplate(main, 'appSettings').variables!.keyVaultSecretsByService as Record<string, Record<string, string>>;
    for (const service of ['identity', 'payment', 'orchestrator', 'visual']) {
      const read = Object.values(references[service]).map((value) => /secrets\/([a-z0-9-]+)\//.exec(value)![1]);
      expect([service, matrix[service].secrets.sort()]).toEqual([service, read.sort()]);
    }
  });

  it('gives each service the storage its settings name by default, and every name is created by storage.bicep', () => {
    const queue = defaultOf('ORCHESTRATOR_QUEUE');
    expect(matrix.visual.containers).toContain(defaultOf('VISUAL_CACHE_CONTAINER'));
    expect(matrix.orchestrator.containers).toContain(defaultOf('ORCHESTRATOR_REPORTS_CONTAINER'));
    expect(matrix.orchestrator.queues.sort()).toEqual([queue, `${queue}-poison`]);
    // The SQL-work markers (shared/sql/idle.ts) are read by payment's and the orchestrator's timers.
    expect(matrix.payment.tables.sort()).toEqual([defaultOf('PAYMENT_FAILED_SYNC_TABLE'), SQL_WORK_TABLE].sort());
    expect(matrix.orchestrator.tables).toEqual([SQL_WORK_TABLE]);
    const storage = moduleTemplate(main, 'storage');
    const created = moduleScope(moduleDeployment(main, 'storage'), topScope(main, { principalId: 'deployer' }));
    const containers = storage.resources.find((r) => r.type === 'Microsoft.Storage/storageAccounts/blobServices/containers')!;
    const containerNames = instances(containers, created).map((at) => String(evaluate(containers.name, at)).split('/').pop());
    const tables = storage.resources.find((r) => r.type === 'Microsoft.Storage/storageAccounts/tableServices/tables')!;
    const tableNames = instances(tables, created).map((at) => String(evaluate(tables.name, at)).split('/').pop());
    const queues = storage.resources.find((r) => r.type === 'Microsoft.Storage/storageAccounts/queueServices/queues')!;
    const queueNames = instances(queues, created).map((at) => String(evaluate(queues.name, at)).split('/').pop());
    for (const access of Object.values(matrix)) {
      expect(containerNames).toEqual(expect.arrayContaining(access.containers));
      expect(tableNames).toEqual(expect.arrayContaining(access.tables));
      expect(queueNames).toEqual(expect.arrayContaining(access.queues));
    }
  });

  it('in one app (singleApp), that app holds the union of the four, and its own package only', () => {
    const single = accessFromTemplate(main, { singleApp: true });
    expect(Object.keys(single)).toEqual(['platform']);
    const union = (key: 'secrets' | 'queues' | 'tables') => [...new Set(Object.values(matrix).flatMap((a) => a[key]))].sort();
    expect(single.platform.secrets.sort()).toEqual(union('secrets'));
    expect(single.platform.queues.sort()).toEqual(union('queues'));
    expect(single.platform.tables.sort()).toEqual(union('tables'));
    expect(single.platform.containers.sort()).toEqual(['chart-cache', 'reports']);
    expect(single.platform.hostAccounts.sort()).toEqual(['sthalltoken blobDataContributor', 'sthalltoken tableDataContributor']);
    expect(single.platform).toMatchObject({ sql: true, email: true, delegationKey: true });
  });
});
