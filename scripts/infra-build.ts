/**
 * npm run infra:build      compiles and lints infra/ with the real Bicep CLI
 *
 * Gets the Bicep CLI the way npm test does (scripts/test-tools.ts: `bicep` on PATH, `az bicep`'s
 * copy, or the pinned NuGet package), then runs `bicep build infra/main.bicep` into
 * dist/infra/main.json and `bicep lint infra/main.bicep`. infra/bicepconfig.json makes the linter
 * rules that matter errors. Clean means no diagnostic at all: an error or a warning fails.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../devhost/paths';
import { bicepTool } from './test-tools';

export const INFRA_DIR = path.join(PROJECT_ROOT, 'infra');
export const COMPILED_TEMPLATE = path.join(PROJECT_ROOT, 'dist', 'infra', 'main.json');

export interface BicepRun {
  command: string;
  status: number | null;
  /** Lines naming a file, a position, a level and a code: `main.bicep(12,3) : Error BCP057: ...`. */
  diagnostics: string[];
  output: string;
}

const DIAGNOSTIC = /^.+\(\d+,\d+\) : (Error|Warning|Info) [\w-]+: /;

function run(bicep: string, args: string[]): BicepRun {
  const result = spawnSync(bicep, args, { encoding: 'utf8', env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' } });
  if (result.error) throw result.error;
  const output = `${result.stdout}${result.stderr}`;
  return { command: `bicep ${args.join(' ')}`, status: result.status, diagnostics: output.split('\n').filter((line) => DIAGNOSTIC.test(line)), output };
}

/** `bicep build` of `main` into `outFile`, then `bicep lint` of it. */
export function buildAndLint(bicep: string, main = path.join(INFRA_DIR, 'main.bicep'), outFile = COMPILED_TEMPLATE): BicepRun[] {
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  return [run(bicep, ['build', main, '--outfile', outFile]), run(bicep, ['lint', main])];
}

/** What is wrong with the runs: a failed command or any diagnostic. */
export function problems(runs: BicepRun[]): string[] {
  return runs.flatMap((r) =>
    r.status !== 0 || r.diagnostics.length
      ? [`${r.command} (exit ${r.status}):\n${(r.diagnostics.length ? r.diagnostics : [r.output.trim()]).join('\n')}`]
      : [],
  );
}

if (require.main === module) {
  try {
    let found = bicepTool.find();
    if (!found) {
      process.stdout.write(`getting the Bicep CLI (${bicepTool.howTo})\n`);
      bicepTool.install();
      found = bicepTool.find();
    }
    if (!found) throw new Error(`no Bicep CLI: ${bicepTool.howTo}`);
    const bicep = found.bicep;
    const wrong = problems(buildAndLint(bicep));
    if (wrong.length) {
      process.stderr.write(`infra:build failed:\n${wrong.join('\n')}\n`);
      process.exitCode = 1;
    } else process.stdout.write(`infra/main.bicep builds and lints clean (${path.relative(PROJECT_ROOT, COMPILED_TEMPLATE)})\n`);
  } catch (error) {
    process.stderr.write(`infra:build failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
