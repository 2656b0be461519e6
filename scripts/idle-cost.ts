/**
 * npm run docs:cost      the idle monthly cost table of docs/deploy.md, from the compiled template
 *
 * An estimate of what a deployment with main.bicep's default parameters costs a month when nobody
 * uses it. The counts and SKUs are read from the ARM template `bicep build infra/main.bicep` makes
 * (its parameters at their defaults, evaluated by scripts/arm-expressions.ts): the availability
 * tests (services x locations x runs), the alert rules and their evaluation frequency, the SQL SKU,
 * its minimum capacity, auto-pause delay and billed data size, the Flex Consumption plans. Prices
 * are named constants below, US list prices (pay-as-you-go, USD) as read on PRICES_READ; what
 * runs by itself while idle (the timers, the database's wake-ups, the log volume) is an estimate
 * named the same way. tests/infra/idle-cost.test.ts fails when the template changes and the table
 * in docs/deploy.md does not (run this to rewrite it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../devhost/paths';
import { evaluate, instances, moduleScope, topScope, type ArmTemplate, type Value } from './arm-expressions';
import { replaceGeneratedBlock } from './markdown';
import { bicepTool } from './test-tools';
import { COMPILED_TEMPLATE, buildAndLint, problems } from './infra-build';

/** When the prices below were read (azure.microsoft.com/pricing, US regions, pay-as-you-go). */
export const PRICES_READ = '2026-11';
export const PRICE = {
  /** Application Insights standard availability test, per run from one location. */
  availabilityTestRun: 0.0012,
  /** Metric alert rule, per monitored time series a month. */
  metricAlertTimeSeries: 0.1,
  /** Log search alert rule, a month, by evaluation frequency. */
  logAlertRule: { PT5M: 1.5, PT10M: 1.0, PT15M: 0.5 } as Record<string, number>,
  /** Azure SQL serverless General Purpose Gen5, per vCore-second online. */
  sqlServerlessVcoreSecond: 0.000145,
  /** Azure SQL General Purpose data storage, per GB-month of the configured maximum size. */
  sqlDataGbMonth: 0.115,
  /** Storage (StorageV2, LRS, hot), per 10,000 operations, averaged over the blob, queue and table operations the hosts make. */
  storageTenThousandOperations: 0.03,
  /** Log Analytics (Analytics logs) per GB beyond the 5 GB a month included. */
  logAnalyticsGb: 2.3,
};

/** What runs by itself while idle: estimates, not read from the template. */
export const IDLE = {
  /** Times a month the database wakes while idle: identity's daily cleanup, and each of the three SQL-work markers expiring weekly (shared/sql/idle.ts). */
  sqlWakesPerMonth: 30.4 + 3 * 4.35,
  /** Minutes of work each wake-up does before the auto-pause delay starts. */
  sqlMinutesOfWork: 1,
  /** Storage operations a month: the hosts' lease renewals and the timers' marker reads. */
  storageOperations: 1_000_000,
  /** GB a month sent to Log Analytics: timer lines, host logs, availability results, audit logs (within the 5 GB included). */
  logGb: 2,
  includedLogGb: 5,
};

const HOURS_A_MONTH = 730;
const SECONDS_A_MONTH = HOURS_A_MONTH * 3600;

export interface CostLine {
  item: string;
  basis: string;
  monthly: number;
}

const money = (value: number) => `$${value < 10 ? value.toFixed(2) : Math.round(value).toLocaleString('en-US')}`;
/** A unit price as written in the price list. */
const unit = (value: number) => `$${value}`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The module deployment named `name` (a module's name, or a module loop's) and its scope (first instance). */
function moduleOf(main: ArmTemplate, name: string) {
  const deployment = main.resources.find((r) => r.type === 'Microsoft.Resources/deployments' && (r.name === name || r.copy?.name === name));
  if (!deployment) throw new Error(`no module ${name}`);
  const top = topScope(main, { principalId: 'deployer' });
  const [first] = instances(deployment, top);
  return {
    template: deployment.properties.template as ArmTemplate,
    scope: moduleScope(deployment, top, first.copyIndex['']),
    instances: instances(deployment, top).length,
  };
}

/** Every deployed instance of the resources of `type` in a module, with its evaluated properties. */
function deployed(main: ArmTemplate, moduleName: string, type: string): Value[] {
  const { template, scope } = moduleOf(main, moduleName);
  return template.resources
    .filter((r) => r.type === type)
    .flatMap((r) => instances(r, scope).map((at) => ({ ...r, properties: evaluate(r.properties, at), sku: evaluate(r.sku, at) })));
}

/** The idle monthly cost lines of the template with its default parameters. */
export function idleCost(main: ArmTemplate): CostLine[] {
  const lines: CostLine[] = [];

  const tests = deployed(main, 'alerts', 'Microsoft.Insights/webtests');
  const locations = tests.reduce((sum, t) => sum + t.properties.Locations.length, 0);
  const frequency = tests[0].properties.Frequency as number;
  const runs = tests.reduce((sum, t) => sum + (t.properties.Locations.length * SECONDS_A_MONTH) / t.properties.Frequency, 0);
  lines.push({
    item: 'Availability tests (standard)',
    basis: `${tests.length} services x ${locations / tests.length} locations every ${frequency / 60} minutes: ${count(runs)} runs at ${unit(PRICE.availabilityTestRun)} a run`,
    monthly: runs * PRICE.availabilityTestRun,
  });

  const metricAlerts = deployed(main, 'alerts', 'Microsoft.Insights/metricAlerts');
  lines.push({
    item: 'Availability alert rules (metric)',
    basis: `${metricAlerts.length} rules, one time series each, at ${unit(PRICE.metricAlertTimeSeries)}`,
    monthly: metricAlerts.length * PRICE.metricAlertTimeSeries,
  });

  const logAlerts = deployed(main, 'alerts', 'Microsoft.Insights/scheduledQueryRules');
  const byFrequency = new Map<string, number>();
  for (const rule of logAlerts) byFrequency.set(rule.properties.evaluationFrequency, (byFrequency.get(rule.properties.evaluationFrequency) ?? 0) + 1);
  lines.push({
    item: 'Log search alert rules',
    basis: [...byFrequency]
      .map(([every, n]) => `${n} rules every ${every.replace(/^PT(\d+)M$/, '$1 minutes')} at ${unit(PRICE.logAlertRule[every])}`)
      .join(', '),
    monthly: logAlerts.reduce((sum, rule) => sum + PRICE.logAlertRule[rule.properties.evaluationFrequency], 0),
  });

  const [database] = deployed(main, 'sql', 'Microsoft.Sql/servers/databases').filter((d) => d.sku);
  const serverless = String(database.sku.name).includes('_S_');
  if (!serverless) throw new Error(`the idle estimate assumes a serverless database; the default SKU is ${database.sku.name}`);
  const minVcores = Number(database.properties.minCapacity);
  const onlineHours = (IDLE.sqlWakesPerMonth * (database.properties.autoPauseDelay + IDLE.sqlMinutesOfWork)) / 60;
  lines.push({
    item: `Azure SQL compute (${database.sku.name}, serverless)`,
    basis: `paused except ${IDLE.sqlWakesPerMonth.toFixed(0)} wake-ups (the daily cleanup, each timer's marker expiring weekly), each online ${database.properties.autoPauseDelay + IDLE.sqlMinutesOfWork} minutes (the auto-pause delay): ${onlineHours.toFixed(0)} hours x ${minVcores} vCore at ${unit(PRICE.sqlServerlessVcoreSecond)} a vCore-second (never paused: ${money(minVcores * SECONDS_A_MONTH * PRICE.sqlServerlessVcoreSecond)})`,
    monthly: onlineHours * 3600 * minVcores * PRICE.sqlServerlessVcoreSecond,
  });
  const maxSizeGb = database.properties.maxSizeBytes / 1024 ** 3;
  lines.push({
    item: 'Azure SQL data storage',
    basis: `${maxSizeGb} GB maximum size at ${unit(PRICE.sqlDataGbMonth)} a GB (backups within the included amount)`,
    monthly: maxSizeGb * PRICE.sqlDataGbMonth,
  });

  const plans = deployed(main, 'functionApps', 'Microsoft.Web/serverfarms');
  const apps = moduleOf(main, 'functionApps').instances;
  const sites = deployed(main, 'functionApps', 'Microsoft.Web/sites');
  if (plans.some((p) => p.sku.name !== 'FC1') || sites.some((s) => s.properties.functionAppConfig?.scaleAndConcurrency?.alwaysReady?.length))
    throw new Error('the idle estimate assumes Flex Consumption (FC1) without always-ready instances');
  lines.push({
    item: 'Functions (Flex Consumption, on demand)',
    basis: `${apps} apps on FC1, no always-ready instance: the timers and the availability requests stay within the monthly free grant (250,000 executions, 100,000 GB-s)`,
    monthly: 0,
  });

  // A storage account has no fixed monthly fee: the data account and the apps' own host accounts
  // cost only their operations and bytes, whatever their number.
  const accounts =
    deployed(main, 'storage', 'Microsoft.Storage/storageAccounts').length +
    moduleOf(main, 'hostStorage').instances * deployed(main, 'hostStorage', 'Microsoft.Storage/storageAccounts').length;
  lines.push({
    item: 'Storage',
    basis: `${accounts} accounts (the data, one per app for its host), no fixed fee: about ${count(IDLE.storageOperations)} operations (the hosts' leases, the timers' markers) at ${unit(PRICE.storageTenThousandOperations)} per 10,000; a few MB stored`,
    monthly: (IDLE.storageOperations / 10_000) * PRICE.storageTenThousandOperations,
  });

  const [workspace] = deployed(main, 'monitoring', 'Microsoft.OperationalInsights/workspaces');
  const cap = workspace.properties.workspaceCapping.dailyQuotaGb;
  lines.push({
    item: 'Log Analytics and Application Insights',
    basis: `about ${IDLE.logGb} GB, within the ${IDLE.includedLogGb} GB included (${unit(PRICE.logAnalyticsGb)} a GB beyond; daily cap ${cap} GB)`,
    monthly: Math.max(0, IDLE.logGb - IDLE.includedLogGb) * PRICE.logAnalyticsGb,
  });
  lines.push({ item: 'Key Vault, Communication Services Email', basis: 'a few hundred secret reads; nothing sent', monthly: 0 });
  return lines;
}

/** The markdown table, with its total. */
export function idleCostTable(main: ArmTemplate): string {
  const lines = idleCost(main);
  const total = lines.reduce((sum, line) => sum + line.monthly, 0);
  return [
    '| Item | Basis (from the compiled template, default parameters) | A month |',
    '|---|---|---|',
    ...lines.map((line) => `| ${line.item} | ${line.basis} | ${money(line.monthly)} |`),
    `| **Total** | list prices read ${PRICES_READ} (\`scripts/idle-cost.ts\`) | **${money(total)}** |`,
  ].join('\n');
}

export const DEPLOY_DOC = path.join(PROJECT_ROOT, 'docs', 'deploy.md');
export const BLOCK = 'idle-cost';

if (require.main === module) {
  try {
    let found = bicepTool.find();
    if (!found) {
      bicepTool.install();
      found = bicepTool.find();
    }
    if (!found) throw new Error(`no Bicep CLI: ${bicepTool.howTo}`);
    const wrong = problems(buildAndLint(found.bicep));
    if (wrong.length) throw new Error(wrong.join('\n'));
    const main = JSON.parse(fs.readFileSync(COMPILED_TEMPLATE, 'utf8')) as ArmTemplate;
    fs.writeFileSync(DEPLOY_DOC, replaceGeneratedBlock(fs.readFileSync(DEPLOY_DOC, 'utf8'), BLOCK, idleCostTable(main)));
    process.stdout.write(`updated docs/deploy.md (${BLOCK})\n`);
  } catch (error) {
    process.stderr.write(`docs:cost failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
