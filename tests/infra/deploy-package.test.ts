/**
 * The Function App package (scripts/deploy-package.ts, the `dist` azd zips for every app): only
 * what runs in Azure, a production-only manifest and lock that npm accepts, and an entry point that
 * loads from the package alone.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateDevSecrets } from '../../devhost/settings';
import { assembleDeployPackage, requireProblems } from '../../scripts/deploy-package';
import { SVG_TEXT_FONTS } from '../../functions/visual/render/fonts';
import { VENDOR_BUNDLES } from '../../shared/vendor';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..', '..');
const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const rootLock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));

let out: string;
const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.relative(out, path.join(dir, e.name))]));

beforeAll(() => {
  out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'deploy-package-')), 'package');
  expect(assembleDeployPackage(out, ROOT).written).toBe(true);
});
afterAll(() => fs.rmSync(path.dirname(out), { recursive: true, force: true }));

describe('the deployment package', () => {
  it('holds the compiled services and shared code, the built console, host.json and the manifests: no dev host, tools, scripts, tests, benchmarks or source maps', () => {
    const shipped = files(out);
    const tops = [
      ...new Set(
        shipped.map((f) =>
          f
            .split(path.sep)
            .slice(0, f.startsWith('dist') ? 2 : 1)
            .join('/'),
        ),
      ),
    ].sort();
    expect(tops).toEqual([
      '.funcignore',
      '.package-stamp',
      'dist/console',
      'dist/functions',
      'dist/shared',
      'dist/vendor',
      'host.json',
      'package-lock.json',
      'package.json',
    ]);
    expect(shipped.filter((f) => f.endsWith('.map') || f.endsWith('.ts'))).toEqual([]);
    expect(shipped).toContain(path.join('dist', 'functions', 'index.js'));
    // The SVG text fonts the build writes from the DejaVu package (the renderer falls back to the full fonts without them, slower).
    for (const font of Object.values(SVG_TEXT_FONTS)) expect(shipped).toContain(path.join('dist', 'functions', 'visual', 'fonts', font));
    expect(fs.readFileSync(path.join(out, '.funcignore'), 'utf8').split('\n')).toContain('node_modules');
  });

  it('has a manifest without devDependencies or scripts, and a lock without development packages that npm ci accepts', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'package.json'), 'utf8'));
    expect(Object.keys(manifest).sort()).toEqual(['dependencies', 'description', 'engines', 'main', 'name', 'overrides', 'version']);
    expect(manifest.dependencies).toEqual(rootPackage.dependencies);
    expect(manifest.main).toBe(rootPackage.main);
    const lock = JSON.parse(fs.readFileSync(path.join(out, 'package-lock.json'), 'utf8'));
    expect(lock.packages[''].devDependencies).toBeUndefined();
    expect(Object.values(lock.packages).filter((p: any) => p.dev)).toEqual([]);
    // The test, build and benchmark tools are gone (some @types come back as dependencies of production packages).
    for (const dev of ['jest', 'typescript', 'azurite', 'autocannon', 'prettier', 'pdf-parse']) expect(lock.packages[`node_modules/${dev}`]).toBeUndefined();
    // Local only: SQLite (a native module the remote build would compile for nothing) and the dev host's cron reader.
    for (const local of ['better-sqlite3', 'croner']) {
      expect(manifest.dependencies[local]).toBeUndefined();
      expect(lock.packages[`node_modules/${local}`]).toBeUndefined();
    }
    const { stdout } = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: out });
    const added = Number(/added (\d+) packages/.exec(stdout)?.[1]);
    expect(added).toBeGreaterThan(100);
    expect(added).toBeLessThan(Object.keys(rootLock.packages).length / 2);
  });

  it('requires only built-ins, production dependencies and its own files, and the checker notices anything else', () => {
    expect(requireProblems(out, rootPackage.dependencies)).toEqual([]);
    const probe = path.join(out, 'dist', 'functions', 'zz-probe.js');
    // A module named in a comment (as JSDoc types in bundled libraries do) is not a require.
    fs.writeFileSync(
      probe,
      "require('jest'); require('../../devhost/host'); require('node:fs'); require('tedious');\n * @param {import('./nowhere.js').default} x\n",
    );
    try {
      expect(requireProblems(out, rootPackage.dependencies)).toEqual([
        `${path.join('dist', 'functions', 'zz-probe.js')} requires jest, which is not a production dependency`,
        `${path.join('dist', 'functions', 'zz-probe.js')} requires ../../devhost/host, which is not in the package`,
      ]);
    } finally {
      fs.rmSync(probe);
    }
  });

  it('loads its entry point from the package alone (with the installed dependencies)', async () => {
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'), 'dir');
    try {
      const sample = JSON.parse(fs.readFileSync(path.join(ROOT, 'local.settings.sample.json'), 'utf8')).Values as Record<string, string>;
      const settings = await generateDevSecrets(sample);
      // The entry point loads, the packaged orchestrator finds the console it serves (index.html and its
      // script), and every vendored library loads from its packaged bundle.
      // better-sqlite3 and croner are not in the package: here they cannot be found either.
      const probe = [
        "const Module = require('node:module'); const resolve = Module._resolveFilename;",
        "Module._resolveFilename = function (request, ...rest) { if (request === 'better-sqlite3' || request === 'croner') throw Object.assign(new Error('Cannot find module ' + request), { code: 'MODULE_NOT_FOUND' }); return resolve.call(this, request, ...rest); };",
        "require('./dist/functions/index.js');",
        // Outside an invocation no platform is in force: the probe builds one from the settings, as the entry point does.
        "const { Platform, runInPlatform } = require('./dist/shared/platform.js');",
        "const platform = new Platform(process.env, undefined, { settings: require('./dist/functions/settings.js').SETTINGS, migrations: () => require('./dist/functions/migrations.js').MIGRATIONS });",
        "const { consoleAssets } = require('./dist/functions/orchestrator/console/assets.js');",
        "const { vendored, VENDOR_BUNDLES } = require('./dist/shared/vendor.js');",
        'const libraries = Object.values(VENDOR_BUNDLES).flat().filter((name) => vendored(name) !== undefined);',
        "console.log('loaded', [...runInPlatform(platform, () => consoleAssets({ platform })).keys()].join(' '), 'libraries', libraries.length);",
        // Without SQL_SERVER the database is SQLite, which is not there: the error says what to set.
        "try { platform.get(require('./dist/shared/sql/db.js').DATABASE); } catch (error) { console.log('db:', error.message); }",
      ].join(' ');
      const { stdout } = await run(process.execPath, ['-e', probe], {
        cwd: out,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...settings, DATA_DIR: path.join(out, 'data'), LOG_LEVEL: 'error' },
      });
      expect(stdout.trim()).toMatch(/^loaded /);
      expect(stdout).toMatch(/\bindex\.html\b/);
      expect(stdout).toMatch(/\bassets\/main-\w+\.js\b/);
      expect(stdout).toMatch(new RegExp(`libraries ${Object.values(VENDOR_BUNDLES).flat().length}$`, 'm'));
      expect(stdout).toContain('db: SQL_SERVER is not set, and SQLite (better-sqlite3, a development dependency) is not installed: in Azure set SQL_SERVER');
    } finally {
      fs.rmSync(path.join(out, 'node_modules'));
    }
  });

  it('is left as it is when nothing changed', () => {
    const before = fs.statSync(path.join(out, 'package.json')).mtimeMs;
    expect(assembleDeployPackage(out, ROOT).written).toBe(false);
    expect(fs.statSync(path.join(out, 'package.json')).mtimeMs).toBe(before);
  });
});
