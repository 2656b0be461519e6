/**
 * No Bicep compiler runs here (.github/workflows/bicep.yml runs `az bicep build` on every push), so
 * module calls are checked by tests/infra/bicep-types.test.ts; these check the parameters file
 * against main.bicep, the storage names the services depend on, and what monitoring must cover.
 */
import fs from 'node:fs';
import path from 'node:path';
import { allServices, functionsOf } from '../../functions/registry';
import { SETTINGS, settingDefaults, type Setting } from '../../shared/config';
import { resolveAppSetting } from '../../shared/functions';
import { parseBicep } from './bicep';

const INFRA = path.resolve(__dirname, '..', '..', '..', 'infra');
const read = (file: string) => fs.readFileSync(path.join(INFRA, file), 'utf8');
const MAIN = read('main.bicep');

const MAIN_FILE = parseBicep(MAIN, 'main.bicep');
const MODULES = [...MAIN_FILE.modules.values()].map((m) => ({ symbol: m.symbol, file: m.path }));
const declaredOutputs = (bicep: string) => [...parseBicep(bicep).outputs.keys()];

describe('main.bicep wiring', () => {
  it('calls every module in infra/modules', () => {
    expect(MODULES.map((m) => m.file).sort()).toEqual(
      fs
        .readdirSync(path.join(INFRA, 'modules'))
        .map((f) => `modules/${f}`)
        .sort(),
    );
  });

  it('has a parameters file naming only main.bicep parameters, including every required one', () => {
    const given = Object.keys(JSON.parse(read('main.parameters.json')).parameters);
    const declared = [...MAIN_FILE.params.values()];
    expect(given.filter((name) => !MAIN_FILE.params.has(name))).toEqual([]);
    expect(declared.filter((p) => !p.defaultValue && !given.includes(p.name)).map((p) => p.name)).toEqual([]);
  });

  it('outputs no secret', () => {
    expect(declaredOutputs(MAIN).filter((name) => /SECRET|KEY$|TOKEN|PASSWORD|CONNECTION/i.test(name))).toEqual([]);
    expect(read('main.parameters.json')).not.toMatch(/secret|password|token/i);
  });
});

describe('storage.bicep', () => {
  const STORAGE = read('modules/storage.bicep');
  const literal = (variable: string) => new RegExp(`^var ${variable} = '([^']+)'$`, 'm').exec(STORAGE)?.[1];

  it('has shared-key access off', () => {
    expect(STORAGE).toMatch(/^\s+allowSharedKeyAccess: false$/m);
  });

  it('declares the containers, the failed-sync table and the report queue with its poison queue', () => {
    expect([literal('chartCacheContainer'), literal('reportsContainer'), literal('failedSyncTable'), literal('reportQueue')]).toEqual([
      'chart-cache',
      'reports',
      'paymentfailedsyncs',
      'report-executions',
    ]);
    expect(STORAGE).toContain("for queue in [ reportQueue, '${reportQueue}-poison' ]");
    expect(STORAGE).toContain('for container in concat([ chartCacheContainer, reportsContainer ], deploymentContainers)');
  });

  // The services' settings naming these (tuning, with defaults) must default to what the Bicep creates.
  it.each([
    ['PAYMENT_FAILED_SYNC_TABLE', 'failedSyncTable'],
    ['ORCHESTRATOR_QUEUE', 'reportQueue'],
    ['ORCHESTRATOR_REPORTS_CONTAINER', 'reportsContainer'],
    ['VISUAL_CACHE_CONTAINER', 'chartCacheContainer'],
  ])('creates the default of %s when the setting is declared', (setting, variable) => {
    const declared = (SETTINGS as Record<string, Setting<unknown>>)[setting];
    if (declared) expect(literal(variable)).toBe(declared.default);
    expect(literal(variable)).toMatch(/^[a-z0-9-]{3,63}$/);
  });

  it('declares the queue (and poison queue) of every queue-triggered function', () => {
    // Queue triggers name their queue as %SETTING%; the Bicep sets that setting to the queue it creates.
    const defaults = settingDefaults();
    for (const fn of functionsOf(allServices())) {
      if (fn.kind === 'queue') expect(literal('reportQueue')).toBe(resolveAppSetting(fn.queueName, defaults));
    }
  });

  it('expires chart-cache blobs after a day and reports after reportRetentionDays (90 by default)', () => {
    expect(STORAGE).toContain("prefixMatch: [ '${chartCacheContainer}/' ]");
    expect(STORAGE).toMatch(/delete: \{ daysAfterModificationGreaterThan: 1 \}/);
    expect(STORAGE).toContain("prefixMatch: [ '${reportsContainer}/' ]");
    expect(STORAGE).toMatch(/delete: \{ daysAfterModificationGreaterThan: reportRetentionDays \}/);
    const retention = MAIN_FILE.params.get('reportRetentionDays')!;
    expect(retention.defaultValue).toEqual({ kind: 'number', value: 90 });
    expect(JSON.parse(read('main.parameters.json')).parameters.reportRetentionDays.value).toBe('${REPORT_RETENTION_DAYS:=90}');
  });

  it('deploys each app from the container storage.bicep creates for it', () => {
    expect(MAIN).toContain("deploymentContainers: [for app in apps: 'deploy-${app.name}']");
    expect(MAIN).toContain("deploymentContainerUrl: '${storage.outputs.blobEndpoint}deploy-${app.name}'");
  });
});

describe('logs and monitoring', () => {
  const diagnosticScopes = (file: string) =>
    [...parseBicep(read(file)).resources.values()]
      .filter((r) => r.type.startsWith('Microsoft.Insights/diagnosticSettings@'))
      .map((r) => (r.value.kind === 'object' ? r.value.entries.find((e) => e.key === 'scope')?.value : undefined))
      .map((scope) => (scope?.kind === 'ident' ? scope.name : '?'));

  it('sends Key Vault, SQL auditing and Storage logs to the Log Analytics workspace', () => {
    expect(diagnosticScopes('modules/key-vault.bicep')).toEqual(['vault']);
    expect(diagnosticScopes('modules/sql.bicep')).toEqual(['master']);
    expect(read('modules/sql.bicep')).toMatch(/isAzureMonitorTargetEnabled: true/);
    expect(read('modules/sql.bicep')).toContain("category: 'SQLSecurityAuditEvents'");
    expect(diagnosticScopes('modules/storage.bicep').sort()).toEqual(['blobs', 'queues', 'tables']);
  });

  it('tests the health route of every service for availability, with an alert on each', () => {
    const alerts = MAIN_FILE.modules.get('alerts')!;
    const params = alerts.value.kind === 'object' ? alerts.value.entries.find((e) => e.key === 'params')!.value : undefined;
    const healthChecks = params?.kind === 'object' ? params.entries.find((e) => e.key === 'healthChecks')!.value : undefined;
    expect(healthChecks).toMatchObject({ kind: 'for', variables: ['service'], source: { kind: 'ident', name: 'serviceNames' } });
    expect(MAIN).toContain("healthChecks: [for service in serviceNames: { service: service, url: '${serviceUrls[service]}/health' }]");
    const module = parseBicep(read('modules/alerts.bicep'));
    expect([...module.resources.values()].map((r) => r.type.split('@')[0]).sort()).toEqual([
      'Microsoft.Insights/actionGroups',
      'Microsoft.Insights/metricAlerts',
      'Microsoft.Insights/scheduledQueryRules',
      'Microsoft.Insights/scheduledQueryRules',
      'Microsoft.Insights/webtests',
    ]);
  });
});
