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
import fs from 'node:fs';
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

/** The tools, in the order they are got. Each issue's tests add theirs here. */
export const TOOLS: TestTool[] = [
  debianTool(
    'poppler-utils',
    'reading report PDFs as a checker would: text, fonts, images, page sizes',
    ['pdftotext', 'pdfinfo', 'pdffonts', 'pdfimages', 'pdftoppm'],
    ['poppler-utils'],
  ),
  debianTool('mupdf-tools', "reading a report PDF's outline, structure tree and catalog", ['mutool'], ['mupdf-tools']),
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
