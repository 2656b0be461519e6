/**
 * No Bicep compiler runs here (docs/deploy.md says how to validate with `az bicep build`), so these
 * checks catch the mistakes a compiler would: a module given a parameter it does not declare or
 * missing a required one, an output read that the module does not produce, and parameter files
 * out of step with main.bicep. Plus the storage names the services depend on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { allServices, functionsOf } from '../../functions/registry';
import { SETTINGS, settingDefaults, type Setting } from '../../shared/config';
import { resolveAppSetting } from '../../shared/functions';

const INFRA = path.resolve(__dirname, '..', '..', '..', 'infra');
const read = (file: string) => fs.readFileSync(path.join(INFRA, file), 'utf8');
const MAIN = read('main.bicep');

/** Keys at the first level of the `{ ... }` block that opens on line `start` (strings blanked before counting braces). */
function blockKeys(lines: string[], start: number): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (const line of lines.slice(start)) {
    const code = line.replace(/'(?:[^'\\]|\\.)*'/g, "''").replace(/\/\/.*$/, '');
    const key = /^\s*(\w+):/.exec(code);
    if (key && depth === 1) keys.push(key[1]);
    depth += (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
    if (depth === 0) break;
  }
  return keys;
}

function declaredParams(bicep: string): { name: string; required: boolean }[] {
  return [...bicep.matchAll(/^param (\w+) \w+( = .*)?$/gm)].map((m) => ({ name: m[1], required: !m[2] }));
}
const declaredOutputs = (bicep: string) => [...bicep.matchAll(/^output (\w+) /gm)].map((m) => m[1]);

const MODULES = [...MAIN.matchAll(/^module (\w+) '([^']+)' = /gm)].map((m) => ({ symbol: m[1], file: m[2] }));

describe('main.bicep wiring', () => {
  it('calls every module in infra/modules', () => {
    expect(MODULES.map((m) => m.file).sort()).toEqual(fs.readdirSync(path.join(INFRA, 'modules')).map((f) => `modules/${f}`).sort());
  });

  it.each(MODULES)('passes $symbol ($file) exactly the parameters it declares', ({ symbol, file }) => {
    const lines = MAIN.split('\n');
    const moduleLine = lines.findIndex((l) => l.startsWith(`module ${symbol} `));
    const paramsLine = lines.findIndex((l, i) => i > moduleLine && /^\s+params: \{$/.test(l));
    const passed = blockKeys(lines, paramsLine);
    const declared = declaredParams(read(file));
    expect(passed.filter((name) => !declared.some((p) => p.name === name))).toEqual([]);
    expect(declared.filter((p) => p.required && !passed.includes(p.name)).map((p) => p.name)).toEqual([]);
  });

  it('reads only outputs the modules produce', () => {
    const reads = [...MAIN.matchAll(/(\w+)(?:\[[^\]]+\])?\.outputs\.(\w+)/g)].map((m) => ({ symbol: m[1], output: m[2] }));
    expect(reads.length).toBeGreaterThan(10);
    for (const { symbol, output } of reads) {
      const module = MODULES.find((m) => m.symbol === symbol);
      expect({ symbol, output, declared: module && declaredOutputs(read(module.file)).includes(output) }).toEqual({ symbol, output, declared: true });
    }
  });

  it('has a parameters file naming only main.bicep parameters, including every required one', () => {
    const given = Object.keys(JSON.parse(read('main.parameters.json')).parameters);
    const declared = declaredParams(MAIN);
    expect(given.filter((name) => !declared.some((p) => p.name === name))).toEqual([]);
    expect(declared.filter((p) => p.required && !given.includes(p.name)).map((p) => p.name)).toEqual([]);
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
    expect(STORAGE).toContain("for container in concat([ chartCacheContainer, reportsContainer ], deploymentContainers)");
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

  it('expires chart-cache blobs with a lifecycle rule', () => {
    expect(STORAGE).toContain("prefixMatch: [ '${chartCacheContainer}/' ]");
    expect(STORAGE).toMatch(/delete: \{ daysAfterModificationGreaterThan: 1 \}/);
  });

  it('deploys each app from the container storage.bicep creates for it', () => {
    expect(MAIN).toContain("deploymentContainers: [for app in apps: 'deploy-${app.name}']");
    expect(MAIN).toContain("deploymentContainerUrl: '${storage.outputs.blobEndpoint}deploy-${app.name}'");
  });
});
