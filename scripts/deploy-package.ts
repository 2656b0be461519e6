/**
 * npm run package:deploy [-- --out <dir>]
 *
 * Assembles the Function App package in `.deploy/` (azure.yaml's `dist` of every service; the
 * service-level prepackage hook runs this before azd zips it): only what runs in Azure.
 * - the compiled services and shared code (dist/functions, dist/shared), without source maps;
 * - the one-file bundles of the libraries a cold start loads (dist/vendor, shared/vendor.ts);
 * - the built administration console (dist/console), which the orchestrator serves from the package;
 * - host.json;
 * - package.json with `main`, `engines`, `dependencies` and `overrides` only: no devDependencies,
 *   no scripts (the code is already compiled, so the remote build has nothing to build);
 * - package-lock.json without the development packages, so the remote build installs exactly the
 *   production tree for Linux (native modules such as @napi-rs/canvas get their Linux binaries);
 * - .funcignore leaving node_modules out (azd then asks Flex Consumption for a remote build).
 * Not in it: devhost/, tools/ (local Stripe server, CLIs), scripts/, tests/, bench/, docs, infra.
 *
 * It checks what it wrote: every `require` in the shipped code is a Node.js built-in, a production
 * dependency, a shipped file, or a local-only module named below; otherwise it fails naming the
 * file and the module. better-sqlite3 (SQLite, laptops and tests) and croner (the dev host's timers)
 * are development dependencies, so they are not in the package: Azure runs on Azure SQL and the
 * Functions host's timers, and does not build a native module it never loads.
 * Run after `npm run build`. Idempotent: unchanged inputs leave the folder as it is.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..');
/** Compiled folders that run in Azure, each with the file that proves it was built. */
const SHIPPED: Record<string, string> = { 'dist/functions': 'index.js', 'dist/shared': '', 'dist/vendor': 'kysely.js', 'dist/console': 'index.html' };
export const SHIPPED_DIRS = Object.keys(SHIPPED);
const STAMP = '.package-stamp';

interface PackageJson {
  name: string;
  version: string;
  description?: string;
  main: string;
  engines?: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
}

interface Lock {
  name: string;
  version: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, { dev?: boolean; devDependencies?: Record<string, string>; [key: string]: unknown }>;
}

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

const shippedFile = (file: string) => !file.endsWith('.map') && !file.endsWith('.tsbuildinfo');

/** The deployment manifest: what runs the app, nothing that builds or tests it. */
export function deployManifest(pkg: PackageJson): PackageJson {
  const { name, version, description, main, engines, dependencies, overrides } = pkg;
  return { name, version, ...(description ? { description } : {}), main, ...(engines ? { engines } : {}), dependencies, ...(overrides ? { overrides } : {}) };
}

/** The lock of the deployment manifest: the development packages and the root's devDependencies removed. */
export function deployLock(lock: Lock): Lock {
  const packages: Lock['packages'] = {};
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (entry.dev) continue;
    if (key === '') {
      const { devDependencies: _dev, ...root } = entry;
      packages[key] = root;
    } else packages[key] = entry;
  }
  return { ...lock, packages };
}

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/**
 * Modules the shipped code requires only on a path that never runs in Azure, each with that path.
 * They are development dependencies: not in the package.
 */
export const LOCAL_ONLY_MODULES: Record<string, string> = {
  'better-sqlite3': 'SQLite (shared/sql/db.ts, loaded only when SQL_SERVER is unset: laptops and tests)',
};

/** Problems with what a shipped file requires: modules outside the production dependencies, or files not shipped. */
export function requireProblems(outDir: string, dependencies: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const file of walk(outDir).filter((f) => f.endsWith('.js'))) {
    // Lines of comments left out: JSDoc in the bundled libraries names modules in `import('...')` types.
    const text = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line))
      .join('\n');
    for (const match of text.matchAll(/\brequire\(\s*(['"])([^'"]+)\1\s*\)|\bimport\(\s*(['"])([^'"]+)\3\s*\)/g)) {
      const specifier = match[2] ?? match[4];
      const where = path.relative(outDir, file);
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        if (
          ![target, `${target}.js`, `${target}.json`, path.join(target, 'index.js')].some(
            (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
          )
        ) {
          problems.push(`${where} requires ${specifier}, which is not in the package`);
        }
        continue;
      }
      if (BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0])) continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      if (!(name in dependencies) && !(name in LOCAL_ONLY_MODULES)) problems.push(`${where} requires ${specifier}, which is not a production dependency`);
    }
  }
  return problems;
}

/** A hash of every input, so an unchanged build is not copied again. */
function inputsStamp(root: string): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json', 'host.json']) hash.update(fs.readFileSync(path.join(root, file)));
  for (const dir of SHIPPED_DIRS) {
    for (const file of walk(path.join(root, dir)).filter(shippedFile).sort()) {
      const stat = fs.statSync(file);
      hash.update(`${path.relative(root, file)}:${stat.size}:${stat.mtimeMs}\n`);
    }
  }
  return hash.digest('hex');
}

/** Writes the package into `outDir`; answers whether it had to (false: already up to date). */
export function assembleDeployPackage(outDir: string, root = ROOT): { written: boolean; files: number } {
  for (const dir of SHIPPED_DIRS) {
    if (!fs.existsSync(path.join(root, dir, SHIPPED[dir]))) throw new Error(`${dir} is missing: run npm run build first`);
  }
  const stamp = inputsStamp(root);
  const stampFile = path.join(outDir, STAMP);
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return { written: false, files: walk(outDir).length };

  // Build beside the target, then swap, so a half-written package is never left behind.
  const building = `${outDir}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  for (const dir of SHIPPED_DIRS) {
    for (const file of walk(path.join(root, dir)).filter(shippedFile)) {
      const target = path.join(building, path.relative(root, file));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    }
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageJson;
  const manifest = deployManifest(pkg);
  fs.copyFileSync(path.join(root, 'host.json'), path.join(building, 'host.json'));
  fs.writeFileSync(path.join(building, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lock;
  fs.writeFileSync(path.join(building, 'package-lock.json'), `${JSON.stringify(deployLock(lock), null, 2)}\n`);
  fs.writeFileSync(
    path.join(building, '.funcignore'),
    `# node_modules are installed for Linux by the remote build (Flex Consumption).\nnode_modules\n${STAMP}\n`,
  );

  const problems = requireProblems(building, manifest.dependencies);
  if (problems.length) {
    fs.rmSync(building, { recursive: true, force: true });
    throw new Error(`the deployment package would not run in Azure:\n  ${problems.join('\n  ')}`);
  }
  fs.writeFileSync(path.join(building, STAMP), stamp);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.renameSync(building, outDir);
  return { written: true, files: walk(outDir).length };
}

function main(): void {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const outDir = path.resolve(values.out ?? path.join(ROOT, '.deploy'));
  const { written, files } = assembleDeployPackage(outDir);
  process.stdout.write(
    written ? `deployment package written to ${outDir} (${files} files; production dependencies only)\n` : `deployment package ${outDir} is up to date\n`,
  );
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`package:deploy failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
