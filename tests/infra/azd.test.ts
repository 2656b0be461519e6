/** azure.yaml, the hooks and the workflows refer to main.bicep outputs and to each other by name; these keep them in step. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SERVICE_NAMES } from '../../shared/config';
import { HOOK_INPUTS } from '../../scripts/postprovision';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const OUTPUTS = [...read('infra/main.bicep').matchAll(/^output (\w+) /gm)].map((m) => m[1]);
const workflow = (name: string) => read(`.github/workflows/${name}`);

describe('azd wiring', () => {
  it("deploys the one package (.deploy, assembled by the prepackage hook) to the app named by each service's main.bicep output", () => {
    const azureYaml = read('azure.yaml');
    for (const service of SERVICE_NAMES) {
      const entry = new RegExp(
        `^  ${service}:\\n    project: \\.\\n    language: ts\\n    host: function\\n    resourceName: \\$\\{(\\w+)\\}\\n    dist: \\.deploy\\n    remoteBuild: true\\n    hooks:\\n      prepackage:\\n        posix:\\n          shell: sh\\n          run: node infra/hooks/run\\.js deploy-package\\n        windows:\\n          shell: pwsh\\n          run: node infra/hooks/run\\.js deploy-package\\n`,
        'm',
      ).exec(azureYaml);
      expect({ service, output: entry?.[1] && OUTPUTS.includes(entry[1]) }).toEqual({ service, output: true });
    }
  });

  it('runs the same Node postprovision hook on POSIX and Windows, reading only main.bicep outputs', async () => {
    const azureYaml = read('azure.yaml');
    expect(azureYaml).toContain(
      'hooks:\n  postprovision:\n    posix:\n      shell: sh\n      run: node infra/hooks/run.js postprovision\n      continueOnError: false\n    windows:\n      shell: pwsh\n      run: node infra/hooks/run.js postprovision\n',
    );
    expect(HOOK_INPUTS.filter((name) => !OUTPUTS.includes(name))).toEqual([]);
    const hook = path.join(ROOT, 'infra', 'hooks', 'run.js');
    await expect(promisify(execFile)(process.execPath, [hook, 'nothing'])).rejects.toMatchObject({
      code: 2,
      stderr: 'usage: node infra/hooks/run.js <postprovision|deploy-package>\n',
    });
    // Deferred by the deploy workflow's provision step, without building anything.
    const skipped = await promisify(execFile)(process.execPath, [hook, 'postprovision'], { env: { ...process.env, POSTPROVISION_SKIP: 'run later' } });
    expect(skipped.stdout).toBe('postprovision: skipped (run later)\n');
  });

  it('has CI run the .ci/run command on Node 20 and 22', () => {
    const ci = workflow('ci.yml');
    expect(ci).toContain('node: [20, 22]');
    expect(ci).toContain('run: ./.ci/run');
    expect(read('.ci/run')).toContain('npm ci\nnpm test');
  });

  it('deploys with azd signed in through OIDC, signing in again right before the postprovision hook', () => {
    const deploy = workflow('deploy.yml');
    expect(deploy).toContain('id-token: write');
    expect(deploy).toContain('--federated-credential-provider github');
    expect(deploy).not.toMatch(/AZURE_CLIENT_SECRET|AZURE_CREDENTIALS|creds:/);
    // provision (hook deferred), sign in again, then the hook, then deploy
    expect(deploy).toMatch(
      /run: azd provision --no-prompt\n\s+env:\n(?:\s+#[^\n]*\n)*\s+POSTPROVISION_SKIP: [^\n]+\n[\s\S]*uses: azure\/login@v2[\s\S]*azd auth login[\s\S]*run: azd hooks run postprovision[\s\S]*run: azd deploy --no-prompt/,
    );
    expect(deploy).toContain('SQL_ADMIN_CLIENT_ID: ${{ vars.AZURE_CLIENT_ID }}');
  });

  it('deploys a commit only after the Bicep, SQL Server and func start gates pass for it in the same run, and skips cleanly without the repository variables', () => {
    const deploy = workflow('deploy.yml');
    for (const [job, file] of [
      ['bicep', 'bicep.yml'],
      ['sql-server', 'sql-server.yml'],
      ['func-start', 'func-start.yml'],
    ]) {
      expect(deploy).toContain(`  ${job}:\n    needs: configured\n    if: needs.configured.outputs.ready == 'true'\n    uses: ./.github/workflows/${file}\n`);
      expect(workflow(file)).toMatch(/^on:\n {2}push:\n {2}pull_request:\n(?: {2}#[^\n]*\n)? {2}workflow_call:\n/m);
    }
    expect(deploy).toContain(
      "  deploy:\n    # The gates of this commit passed (a skipped or failed gate stops the deployment).\n    needs: [configured, bicep, sql-server, func-start]\n    if: needs.configured.outputs.ready == 'true'\n",
    );
    // Missing variables: a notice and ready=false, never a failed run.
    const check = deploy.slice(deploy.indexOf('  configured:'), deploy.indexOf('  bicep:'));
    expect(check).toContain('echo "ready=false" >> "$GITHUB_OUTPUT"');
    expect(check).toContain('::notice::Deployment skipped');
    expect(check).not.toMatch(/exit 1|::error::/);
    // The Bicep gate lints with the repository's linter configuration.
    expect(workflow('bicep.yml')).toContain('az bicep lint --file infra/main.bicep');
  });

  it('keeps local settings, tooling and tests out of a Core Tools publish from the root', () => {
    const ignored = read('.funcignore').split('\n');
    expect(ignored).toEqual(
      expect.arrayContaining(['local.settings.json', '.data', 'dist/tests', 'dist/tools', 'dist/devhost', 'dist/scripts', 'node_modules']),
    );
    expect(ignored).not.toContain('dist');
  });
});
