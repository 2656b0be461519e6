/** azure.yaml, the provisioning hook and the workflows refer to main.bicep outputs by name; these keep the names in step. */
import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES } from '../../shared/config';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const OUTPUTS = [...read('infra/main.bicep').matchAll(/^output (\w+) /gm)].map((m) => m[1]);

describe('azd wiring', () => {
  it('deploys every service to the app named by its main.bicep output', () => {
    const azureYaml = read('azure.yaml');
    for (const service of SERVICE_NAMES) {
      const entry = new RegExp(`^  ${service}:\\n    project: \\.\\n    language: ts\\n    host: function\\n    resourceName: \\$\\{(\\w+)\\}`, 'm').exec(azureYaml);
      expect(OUTPUTS).toContain(entry?.[1]);
    }
    expect(azureYaml).toContain('run: ./infra/hooks/postprovision.sh');
  });

  it('runs a hook that reads only main.bicep outputs', () => {
    const hook = read('infra/hooks/postprovision.sh');
    const assignedInHook = ['ip', 'rule', 'attempt'];
    const used = [...new Set([...hook.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1]))].filter((name) => !assignedInHook.includes(name));
    expect(used.length).toBeGreaterThan(5);
    expect(used.filter((name) => !OUTPUTS.includes(name))).toEqual([]);
    expect(fs.statSync(path.join(ROOT, 'infra/hooks/postprovision.sh')).mode & 0o111).not.toBe(0);
  });

  it('has CI run the .ci/run command on Node 20 and 22', () => {
    const ci = read('.github/workflows/ci.yml');
    expect(ci).toContain('node: [20, 22]');
    expect(ci).toContain('run: ./.ci/run');
    expect(read('.ci/run')).toContain('npm ci\nnpm test');
  });

  it('deploys with azd signed in through OIDC, with no stored Azure secret', () => {
    const deploy = read('.github/workflows/deploy.yml');
    expect(deploy).toContain('id-token: write');
    expect(deploy).toContain('--federated-credential-provider github');
    expect(deploy).toMatch(/azd provision --no-prompt[\s\S]*azd deploy --no-prompt/);
    expect(deploy).not.toMatch(/AZURE_CLIENT_SECRET|AZURE_CREDENTIALS|creds:/);
  });

  it('keeps local settings and tests out of the deployment package', () => {
    const ignored = read('.funcignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['local.settings.json', '.data', 'dist/tests', 'node_modules']));
    expect(ignored).not.toContain('dist');
  });
});
