/**
 * npm run test:tools      gets the programs some tests need beyond npm (npm test runs it first)
 *
 * Some tests read what a person receives with the tools a checker would use (Debian's PDF readers)
 * or run Microsoft's own compilers (the Bicep CLI, ScriptDom). None of them comes with `npm ci`, and
 * nothing may depend on something installed by hand, so this script gets each one the way this kind
 * of machine can: a Debian package through apt-get when running as root, a pinned NuGet package
 * through `dotnet restore`. What it cannot get, it names with the command that would get it; the
 * tests that need it then say so and skip. With REQUIRE_TEST_TOOLS=1 (CI) a tool it cannot get fails
 * the run instead: CI must run every check.
 *
 * Where each tool was found is written to dist/test-tools.json, which the tests read
 * (tests/helpers/tools.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../devhost/paths';

export interface TestTool {
  name: string;
  /** What the tests use it for (printed when it is missing). */
  purpose: string;
  /** The tool's path(s) when usable now, else undefined. */
  find(): Record<string, string> | undefined;
  /** Gets the tool; throws with what went wrong. */
  install(): void;
  /** How a person gets it by hand. */
  howTo: string;
}

export const MANIFEST = path.join(PROJECT_ROOT, 'dist', 'test-tools.json');

/** An executable on PATH, or undefined. */
export function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

/**
 * Installs Debian packages with apt-get: as root, or through sudo where it needs no password (GitHub's
 * runners); never asks for one.
 */
export function aptInstall(packages: string[]): void {
  if (!onPath('apt-get')) throw new Error('no apt-get on this machine');
  const root = process.getuid?.() === 0;
  if (!root && spawnSync('sudo', ['-n', 'true']).status !== 0) throw new Error('apt-get needs root, and sudo asks for a password');
  const apt = (args: string[]) =>
    execFileSync(root ? 'apt-get' : 'sudo', root ? args : ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt(['install', '-y', '--no-install-recommends', ...packages]);
  } catch {
    // A fresh machine's package lists may be missing or stale.
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', ...packages]);
  }
}

/** Debian packages providing commands: found on PATH, else installed. */
export function debianTool(name: string, purpose: string, commands: string[], packages: string[]): TestTool {
  const find = () => {
    const paths = Object.fromEntries(commands.map((c) => [c, onPath(c)]));
    return Object.values(paths).every(Boolean) ? (paths as Record<string, string>) : undefined;
  };
  return { name, purpose, find, install: () => aptInstall(packages), howTo: `sudo apt-get install ${packages.join(' ')}` };
}

/** Where this machine keeps what is built once for every checkout (the T-SQL checker). */
export const MACHINE_CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'report-platform');

/** NuGet's global packages folder, where a restore leaves each package (lower-case id/version). */
export const nugetPackages = () => process.env.NUGET_PACKAGES || path.join(os.homedir(), '.nuget', 'packages');

function requireDotnet(): string {
  const dotnet = onPath('dotnet');
  if (!dotnet) throw new Error('the .NET SDK (dotnet) is not installed');
  return dotnet;
}

/**
 * Fetches pinned NuGet packages without building anything: a restore-only project whose
 * `PackageDownload` items name them, restored in a folder of the machine cache.
 */
export function nugetDownload(packages: Record<string, string>): void {
  const dotnet = requireDotnet();
  const dir = path.join(MACHINE_CACHE, 'nuget-download', createHash('sha256').update(JSON.stringify(packages)).digest('hex').slice(0, 12));
  fs.mkdirSync(dir, { recursive: true });
  const items = Object.entries(packages).map(([id, version]) => `    <PackageDownload Include="${id}" Version="[${version}]" />`);
  fs.writeFileSync(
    path.join(dir, 'restore.csproj'),
    `<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>\n  <ItemGroup>\n${items.join('\n')}\n  </ItemGroup>\n</Project>\n`,
  );
  execFileSync(dotnet, ['restore', path.join(dir, 'restore.csproj'), '--nologo', '-v', 'q', '--disable-build-servers'], { stdio: 'inherit' });
}

/** The Bicep CLI version restored from NuGet when none is on the machine (the one CI uses). */
export const BICEP_VERSION = '0.49.2';
const BICEP_PACKAGE = 'Azure.Bicep.CommandLine.linux-x64';
const nugetBicep = () => path.join(nugetPackages(), BICEP_PACKAGE.toLowerCase(), BICEP_VERSION, 'tools', 'bicep');

/** A Bicep CLI that answers `--version`, with that version. */
function bicepAt(executable: string | undefined): Record<string, string> | undefined {
  if (!executable || !fs.existsSync(executable)) return undefined;
  const answer = spawnSync(executable, ['--version'], { encoding: 'utf8' });
  const version = /Bicep CLI version (\d+\.\d+\.\d+)/.exec(answer.stdout ?? '')?.[1];
  return answer.status === 0 && version ? { bicep: executable, version } : undefined;
}

/**
 * The Bicep CLI: `bicep` on PATH, else the one `az bicep install` keeps in ~/.azure/bin, else the
 * pinned NuGet package (a self-contained Linux x64 executable inside it).
 */
export const bicepTool: TestTool = {
  name: 'bicep',
  purpose: 'compiles and lints infra/ (tests/infra)',
  find: () =>
    bicepAt(onPath('bicep')) ??
    bicepAt(path.join(os.homedir(), '.azure', 'bin', process.platform === 'win32' ? 'bicep.exe' : 'bicep')) ??
    // The pinned package's version is known: no need to start it (2 s) to ask.
    (fs.existsSync(nugetBicep()) ? { bicep: nugetBicep(), version: BICEP_VERSION } : undefined),
  install: () => {
    if (process.platform !== 'linux' || process.arch !== 'x64')
      throw new Error(`the NuGet package is for Linux x64; on ${process.platform} ${process.arch} run: az bicep install`);
    nugetDownload({ [BICEP_PACKAGE]: BICEP_VERSION });
    // NuGet does not keep file modes everywhere.
    fs.chmodSync(nugetBicep(), 0o755);
  },
  howTo: 'az bicep install (Azure CLI), or install .NET 10 and rerun npm run test:tools (it restores the pinned NuGet package)',
};

const TSQL_CHECK_SOURCE = path.join(PROJECT_ROOT, 'tools', 'tsql-check');
/** The checker's sources (a bin/ or obj/ left by a build by hand is not one). */
const tsqlCheckSources = () =>
  fs
    .readdirSync(TSQL_CHECK_SOURCE)
    .filter((file) => /\.(cs|csproj)$/.test(file))
    .sort();

/** The checker's build folder: one per content of its sources, so an unchanged checker is built once per machine. */
function tsqlCheckBuild(): string {
  const hash = createHash('sha256');
  for (const file of tsqlCheckSources()) hash.update(file).update(fs.readFileSync(path.join(TSQL_CHECK_SOURCE, file)));
  return path.join(MACHINE_CACHE, 'tsql-check', hash.digest('hex').slice(0, 16));
}

/** ScriptDom, SQL Server's own T-SQL parser, behind a small .NET program (tools/tsql-check). */
export const tsqlCheckTool: TestTool = {
  name: 'tsql-check',
  purpose: "parses every T-SQL statement the platform runs with Microsoft's parser (tests/helpers/tsql.ts)",
  find: () => {
    const dll = path.join(tsqlCheckBuild(), 'bin', 'TsqlCheck.dll');
    const dotnet = onPath('dotnet');
    return dotnet && fs.existsSync(dll) ? { dotnet, dll } : undefined;
  },
  install: () => {
    const dotnet = requireDotnet();
    const build = tsqlCheckBuild();
    // Built from a copy, so no obj/ or bin/ lands in the checkout.
    const source = path.join(build, 'src');
    fs.rmSync(build, { recursive: true, force: true });
    fs.mkdirSync(source, { recursive: true });
    for (const file of tsqlCheckSources()) fs.copyFileSync(path.join(TSQL_CHECK_SOURCE, file), path.join(source, file));
    execFileSync(
      dotnet,
      ['build', source, '-c', 'Release', '-o', path.join(build, 'bin'), '--nologo', '-v', 'q', '--disable-build-servers', '-nodeReuse:false'],
      { stdio: 'inherit' },
    );
  },
  howTo: 'install the .NET 10 SDK (dotnet) and rerun npm run test:tools (it restores ScriptDom from NuGet and builds tools/tsql-check)',
};

/** The tools, in the order they are got. Each issue's tests add theirs here. */
export const TOOLS: TestTool[] = [
  debianTool(
    'poppler-utils',
    'reading report PDFs as a checker would: text, fonts, images, page sizes',
    ['pdftotext', 'pdfinfo', 'pdffonts', 'pdfimages', 'pdftoppm'],
    ['poppler-utils'],
  ),
  debianTool('mupdf-tools', "reading a report PDF's outline, structure tree and catalog", ['mutool'], ['mupdf-tools']),
  bicepTool,
  tsqlCheckTool,
];

export function ensureTestTools(tools: TestTool[] = TOOLS, required = process.env.REQUIRE_TEST_TOOLS === '1'): Record<string, Record<string, string>> {
  const found: Record<string, Record<string, string>> = {};
  const missing: string[] = [];
  for (const tool of tools) {
    let paths = tool.find();
    if (!paths) {
      try {
        console.log(`test tools: getting ${tool.name} (${tool.purpose})`);
        tool.install();
        paths = tool.find();
      } catch (error) {
        console.warn(`test tools: could not get ${tool.name}: ${(error as Error).message}`);
      }
    }
    if (paths) found[tool.name] = paths;
    else missing.push(`${tool.name} (${tool.purpose}): ${tool.howTo}`);
  }
  fs.mkdirSync(path.dirname(MANIFEST), { recursive: true });
  fs.writeFileSync(MANIFEST, JSON.stringify(found, null, 2));
  if (missing.length) {
    const lines = missing.map((m) => `  - ${m}`).join('\n');
    if (required) throw new Error(`test tools missing (REQUIRE_TEST_TOOLS=1):\n${lines}`);
    console.warn(`test tools missing; the tests that need them will skip:\n${lines}`);
  }
  return found;
}

if (require.main === module) {
  try {
    ensureTestTools();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
