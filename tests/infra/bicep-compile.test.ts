/**
 * infra/ through the real Bicep compiler and linter. `npm run infra:build` (bicep build, then bicep
 * lint, with infra/bicepconfig.json making the rules that matter errors) must be clean: no error and
 * no warning. Then one mistake at a time is put into a copy of infra/, each of a kind a reviewer
 * found a hand-written checker let through, and the compiler must refuse it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAndLint, problems } from '../../scripts/infra-build';
import { BicepCompiler, describeWithBicep, INFRA, type Compilation } from '../helpers/bicep';

interface Injection {
  /** The mistake. */
  title: string;
  file: string;
  from: string;
  to: string;
  /** The diagnostic the compiler must give, on the line of the change. */
  level: 'Error' | 'Warning';
  code: string;
}

const INJECTIONS: Injection[] = [
  {
    title: 'an unknown function (trimm)',
    file: 'main.bicep',
    from: 'var resourceToken = toLower(uniqueString(',
    to: 'var resourceToken = trimm(uniqueString(',
    level: 'Error',
    code: 'BCP082',
  },
  {
    // A resource property's type is a warning for Bicep (its type definitions may be wrong), so
    // `bicep build` alone still exits 0: infra:build fails on it because clean means no warning.
    title: 'a string given to an int property',
    file: 'modules/monitoring.bicep',
    from: 'retentionInDays: 30',
    to: "retentionInDays: '30'",
    level: 'Warning',
    code: 'BCP036',
  },
  {
    title: 'a run-time value in a module name (BCP120)',
    file: 'main.bicep',
    from: "module alerts 'modules/alerts.bicep' = {\n  name: 'alerts'",
    to: "module alerts 'modules/alerts.bicep' = {\n  name: 'alerts-${monitoring.outputs.name}'",
    level: 'Error',
    code: 'BCP120',
  },
  {
    title: 'a bad principalType value',
    file: 'main.bicep',
    from: '    deployerPrincipalType: principalType',
    to: "    deployerPrincipalType: 'ManagedIdentity'",
    level: 'Error',
    code: 'BCP036',
  },
  {
    title: 'a circular dependsOn',
    file: 'modules/storage.bicep',
    from: "resource blobs 'Microsoft.Storage/storageAccounts/blobServices@2025-06-01' = {\n  parent: account\n  name: 'default'\n",
    to: "resource blobs 'Microsoft.Storage/storageAccounts/blobServices@2025-06-01' = {\n  parent: account\n  name: 'default'\n  dependsOn: [ containers ]\n",
    level: 'Error',
    code: 'BCP080',
  },
  {
    // The November azd up failure: principalType also allows ServicePrincipal, which the SQL module refuses.
    title: 'a wider union given to a module parameter with @allowed (BCP036, the November failure)',
    file: 'main.bicep',
    from: '    adminPrincipalType: sqlAdminPrincipalType',
    to: "    adminPrincipalType: empty(sqlAdminObjectId) ? principalType : 'Group'",
    level: 'Error',
    code: 'BCP036',
  },
];

/** A copy of infra/ in a fresh temporary folder, with `change` applied to one file (it must match exactly once). */
function infraCopy(change?: Injection): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'infra-')), 'infra');
  fs.cpSync(INFRA, dir, { recursive: true });
  if (change) {
    const file = path.join(dir, change.file);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split(change.from)).toHaveLength(2);
    fs.writeFileSync(file, text.replace(change.from, change.to));
  }
  return dir;
}

/** Clean as infra:build means it: compiled, and not one diagnostic (the linter's included). */
const clean = (result: Compilation) => result.success && result.diagnostics.length === 0;

describeWithBicep('infra/ and the Bicep CLI', (bicep) => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it('npm run infra:build: bicep build and bicep lint of infra/main.bicep give no error and no warning', () => {
    const dir = infraCopy();
    copies.push(dir);
    const outFile = path.join(path.dirname(dir), 'main.json');
    const runs = buildAndLint(bicep, path.join(dir, 'main.bicep'), outFile);
    expect(problems(runs)).toEqual([]);
    expect(runs.map((r) => r.command.split(' ').slice(0, 2).join(' '))).toEqual(['bicep build', 'bicep lint']);
    const template = JSON.parse(fs.readFileSync(outFile, 'utf8'));
    expect(template.$schema).toMatch(/subscriptionDeploymentTemplate\.json#$/);
  });

  describe('each injected mistake fails the build', () => {
    let compiler: BicepCompiler;
    beforeAll(() => {
      compiler = new BicepCompiler(bicep);
    });
    afterAll(() => compiler.close());

    it('an untouched copy compiles clean (the mistakes below are what fails)', async () => {
      const dir = infraCopy();
      copies.push(dir);
      const result = await compiler.compile(path.join(dir, 'main.bicep'));
      expect(result.diagnostics).toEqual([]);
      expect(clean(result)).toBe(true);
    });

    it('reads every module under infra/modules, and the linter configuration', async () => {
      const read = await compiler.fileReferences(path.join(INFRA, 'main.bicep'));
      const modules = fs.readdirSync(path.join(INFRA, 'modules')).map((file) => path.join(INFRA, 'modules', file));
      expect(read.map((file) => path.resolve(file)).sort()).toEqual([path.join(INFRA, 'bicepconfig.json'), path.join(INFRA, 'main.bicep'), ...modules].sort());
    });

    it.each(INJECTIONS.map((i) => [i.title, i] as const))('%s', async (_title, injection) => {
      const dir = infraCopy(injection);
      copies.push(dir);
      const result = await compiler.compile(path.join(dir, 'main.bicep'));
      expect(clean(result)).toBe(false);
      const changedLine = fs.readFileSync(path.join(dir, injection.file), 'utf8').split(injection.to)[0].split('\n').length - 1;
      const lastLine = changedLine + injection.to.split('\n').length - 1;
      const found = result.diagnostics.filter(
        (d) => d.code === injection.code && d.level === injection.level && path.resolve(d.source) === path.join(dir, injection.file),
      );
      expect(found.map((d) => d.range.start.line).filter((line) => line >= changedLine && line <= lastLine)).not.toEqual([]);
      if (injection.level === 'Error') expect(result.success).toBe(false);
    });
  });
});
