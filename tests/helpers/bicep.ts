import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/paths';
import { describeWithTool } from './tools';

export const INFRA = path.join(PROJECT_ROOT, 'infra');

export interface Diagnostic {
  source: string;
  level: 'Error' | 'Warning' | 'Info';
  code: string;
  message: string;
  range: { start: { line: number; char: number } };
}

export interface Compilation {
  success: boolean;
  diagnostics: Diagnostic[];
  /** The ARM template (JSON text) when it compiled. */
  contents?: string;
}

/**
 * The Bicep compiler as one long-running process (`bicep jsonrpc --stdio`): the same compiler and
 * linter as `bicep build`, without paying for a process start (2-5 s here) per file compiled.
 * Messages are JSON-RPC 2.0 framed with Content-Length headers.
 */
export class BicepCompiler {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  constructor(bicep: string) {
    this.child = spawn(bicep, ['jsonrpc', '--stdio'], { stdio: 'pipe', env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' } });
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    this.child.on('exit', (code) => {
      for (const { reject } of this.waiting.values()) reject(new Error(`bicep jsonrpc exited (${code})`));
      this.waiting.clear();
    });
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: *(\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString()) as { id?: number; result?: unknown; error?: { message: string } };
      this.buffer = this.buffer.subarray(end + 4 + length);
      const call = message.id === undefined ? undefined : this.waiting.get(message.id);
      if (!call) continue;
      this.waiting.delete(message.id!);
      if (message.error) call.reject(new Error(`bicep: ${message.error.message}`));
      else call.resolve(message.result);
    }
  }

  private call<T>(method: string, params: unknown): Promise<T> {
    const id = ++this.nextId;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  /** Compiles a .bicep file (its modules too) with the bicepconfig.json found above it. */
  compile(file: string): Promise<Compilation> {
    return this.call<Compilation>('bicep/compile', { path: file });
  }

  /** Every file the compilation of `file` reads: itself, its modules, bicepconfig.json. */
  async fileReferences(file: string): Promise<string[]> {
    return (await this.call<{ filePaths: string[] }>('bicep/getFileReferences', { path: file })).filePaths;
  }

  close(): Promise<void> {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
      this.child.kill();
    });
  }
}

/**
 * A describe block with the Bicep CLI (npm run test:tools gets it). Without it (a laptop with no
 * .NET and no Azure CLI) the block skips saying how to get one; CI (REQUIRE_TEST_TOOLS=1) fails.
 */
export function describeWithBicep(title: string, body: (bicep: string) => void): void {
  describeWithTool('bicep', title, (paths) => body(paths.bicep));
}

/** A hash of everything `bicep build infra/main.bicep` reads. */
function infraHash(dir = INFRA): string {
  const hash = createHash('sha256');
  const walk = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.bicep$|bicepconfig\.json$/.test(entry.name)) hash.update(path.relative(dir, full)).update(fs.readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The ARM template `bicep build` makes of infra/main.bicep, compiled once per content of infra/ and
 * kept in dist/ for the other test files of the run. Throws with the diagnostics if it does not build.
 */
export function compiledInfra(bicep: string): ArmTemplate {
  const cached = path.join(PROJECT_ROOT, 'dist', 'infra', `main-${infraHash()}.json`);
  if (!fs.existsSync(cached)) {
    const temporary = `${cached}.${process.pid}.tmp`;
    fs.mkdirSync(path.dirname(cached), { recursive: true });
    const result = spawnSync(bicep, ['build', path.join(INFRA, 'main.bicep'), '--outfile', temporary], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`bicep build infra/main.bicep failed:\n${result.stdout}${result.stderr}`);
    fs.renameSync(temporary, cached);
  }
  return JSON.parse(fs.readFileSync(cached, 'utf8')) as ArmTemplate;
}

// ---------------------------------------------------------------------------------------------
// Reading the compiled template.

export interface ArmResource {
  type: string;
  apiVersion: string;
  name: string;
  scope?: string;
  dependsOn?: string[];
  copy?: { name: string; count: string };
  properties?: any;
  [key: string]: any;
}

export interface ArmTemplate {
  parameters: Record<string, { type: string; defaultValue?: unknown; allowedValues?: unknown[]; minValue?: number; maxValue?: number }>;
  variables?: Record<string, any>;
  resources: ArmResource[];
  outputs?: Record<string, { type: string; value: unknown }>;
}

/** The nested template of the module deployed under `name` (a module's `name:`, e.g. 'storage'; a loop's name as ARM writes it). */
export function moduleTemplate(template: ArmTemplate, name: string): ArmTemplate {
  const deployment = moduleDeployment(template, name);
  return deployment.properties.template as ArmTemplate;
}

export function moduleDeployment(template: ArmTemplate, name: string): ArmResource {
  const deployment = template.resources.find((r) => r.type === 'Microsoft.Resources/deployments' && (r.name === name || r.copy?.name === name));
  if (!deployment) throw new Error(`no module deployment named ${name}`);
  return deployment;
}

/** Resources of the template (not of its modules) whose type is `type`. */
export const resourcesOfType = (template: ArmTemplate, type: string) => template.resources.filter((r) => r.type.toLowerCase() === type.toLowerCase());

/** The one resource of that type. */
export function resourceOfType(template: ArmTemplate, type: string): ArmResource {
  const found = resourcesOfType(template, type);
  if (found.length !== 1) throw new Error(`${found.length} resources of type ${type}`);
  return found[0];
}
