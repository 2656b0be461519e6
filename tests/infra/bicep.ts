/**
 * A small reader of the Bicep this repository writes, for the checks a Bicep compiler would make
 * and that no compiler can make here (it is a .NET binary downloaded from GitHub; the workflow in
 * .github/workflows/bicep.yml runs the real one). It parses declarations (param with decorators,
 * var, module, resource, output) and their expressions into a tree, then checks every module call:
 * each argument is a declared parameter, every required parameter is passed, every value passed to
 * an `@allowed` parameter can only be one of its allowed values (literals, each branch of a ternary,
 * parameters and variables followed to their own allowed values or literals), and values whose type
 * is known (literals, parameters, module outputs) match the parameter's type. Outputs are checked
 * against their declared type the same way. The reading itself is tests/infra/bicep-parse.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseBicep, type BicepFile, type Expr, type ParamDecl } from './bicep-parse';

export { parseBicep, type BicepFile, type Expr } from './bicep-parse';

// ---------------------------------------------------------------------------------------------
// What a value can be: its possible literals and its type, as far as they are known.

type Literal = string | number | boolean;
export type BicepType = 'string' | 'int' | 'bool' | 'object' | 'array';

interface Scope {
  file: BicepFile;
  /** Loop and lambda variables in scope (their values are not followed). */
  locals: Set<string>;
  /** Parsed modules by path, to read their outputs. */
  load(from: BicepFile, modulePath: string): BicepFile;
}

const decorator = (p: ParamDecl, name: string) => p.decorators.find((d) => d.name === name);

function literalOf(expr: Expr): Literal | undefined {
  if (expr.kind === 'string') return expr.value;
  if (expr.kind === 'number' || expr.kind === 'bool') return expr.value;
  if (expr.kind === 'unary' && expr.operator === '-' && expr.operand.kind === 'number') return -expr.operand.value;
  return undefined;
}

/** The values a parameter accepts: its @allowed list, or a union of literals as its type; undefined when any value of its type. */
export function allowedValues(param: ParamDecl): Literal[] | undefined {
  const allowed = decorator(param, 'allowed');
  if (allowed) {
    const list = allowed.args[0];
    if (list?.kind !== 'array') throw new Error(`@allowed of ${param.name} is not an array`);
    return list.items.map((item) => {
      const value = literalOf(item);
      if (value === undefined) throw new Error(`@allowed of ${param.name} holds a value that is not a literal`);
      return value;
    });
  }
  const union = param.type
    .replace(/\?$/, '')
    .split('|')
    .map((part) => part.trim());
  if (union.length > 1 || /^'/.test(union[0])) return union.map((part) => literalOf(parseBicep(`var x = ${part}`).vars.get('x')!.value)!);
  return undefined;
}

/** The primitive type of a declared type text: string, int, bool, object, array (undefined: anything else). */
export function declaredType(type: string): BicepType | undefined {
  const t = type.replace(/\?$/, '').trim();
  if (t.endsWith('[]')) return 'array';
  if (['string', 'int', 'bool', 'object', 'array'].includes(t)) return t as BicepType;
  if (/^'[^']*'(\s*\|\s*'[^']*')*$/.test(t)) return 'string';
  if (/^-?\d+(\s*\|\s*-?\d+)*$/.test(t)) return 'int';
  return undefined;
}

/** Every literal the expression can evaluate to, or undefined when that cannot be known from the text. */
export function possibleLiterals(expr: Expr, scope: Scope): Literal[] | undefined {
  const literal = literalOf(expr);
  if (literal !== undefined) return [literal];
  if (expr.kind === 'ternary') {
    const a = possibleLiterals(expr.whenTrue, scope);
    const b = possibleLiterals(expr.whenFalse, scope);
    return a && b ? [...new Set([...a, ...b])] : undefined;
  }
  if (expr.kind === 'ident' && !scope.locals.has(expr.name)) {
    const param = scope.file.params.get(expr.name);
    if (param) return allowedValues(param);
    const variable = scope.file.vars.get(expr.name);
    if (variable) return possibleLiterals(variable.value, { ...scope, locals: new Set() });
  }
  return undefined;
}

const STRING_FUNCTIONS = new Set([
  'string',
  'toLower',
  'toUpper',
  'uniqueString',
  'join',
  'format',
  'guid',
  'substring',
  'replace',
  'trim',
  'base64',
  'uri',
  'subscriptionResourceId',
  'resourceId',
  'tenantResourceId',
  'extensionResourceId',
  'newGuid',
  'utcNow',
  'padLeft',
  'dataUri',
]);
const BOOL_FUNCTIONS = new Set(['empty', 'contains', 'startsWith', 'endsWith', 'bool', 'equals']);
const INT_FUNCTIONS = new Set(['length', 'int', 'indexOf', 'lastIndexOf']);
const ARRAY_FUNCTIONS = new Set(['items', 'map', 'filter', 'sort', 'range', 'split', 'array', 'flatten', 'toArray']);
const OBJECT_FUNCTIONS = new Set(['tenant', 'subscription', 'resourceGroup', 'deployment', 'environment', 'toObject']);

/** The type of the expression, or undefined when it cannot be known from the text. */
export function typeOf(expr: Expr, scope: Scope): BicepType | undefined {
  switch (expr.kind) {
    case 'string':
      return 'string';
    case 'number':
      return 'int';
    case 'bool':
      return 'bool';
    case 'object':
      return 'object';
    case 'array':
    case 'for':
      return 'array';
    case 'unary':
      return expr.operator === '!' ? 'bool' : 'int';
    case 'binary':
      return ['&&', '||', '==', '!=', '=~', '!~', '<', '>', '<=', '>='].includes(expr.operator) ? 'bool' : expr.operator === '??' ? undefined : 'int';
    case 'ternary': {
      const a = typeOf(expr.whenTrue, scope);
      const b = typeOf(expr.whenFalse, scope);
      return a === b ? a : undefined;
    }
    case 'ident': {
      if (scope.locals.has(expr.name)) return undefined;
      const param = scope.file.params.get(expr.name);
      if (param) return declaredType(param.type);
      const variable = scope.file.vars.get(expr.name);
      if (variable) return typeOf(variable.value, { ...scope, locals: new Set() });
      return undefined;
    }
    case 'call':
      if (STRING_FUNCTIONS.has(expr.callee)) return 'string';
      if (BOOL_FUNCTIONS.has(expr.callee)) return 'bool';
      if (INT_FUNCTIONS.has(expr.callee)) return 'int';
      if (ARRAY_FUNCTIONS.has(expr.callee)) return 'array';
      if (OBJECT_FUNCTIONS.has(expr.callee)) return 'object';
      if (['concat', 'union', 'intersection', 'take', 'skip', 'first', 'last', 'min', 'max'].includes(expr.callee) && expr.args[0]) {
        const first = typeOf(expr.args[0], scope);
        if (['first', 'last'].includes(expr.callee)) return first === 'string' ? 'string' : undefined;
        return first;
      }
      return undefined;
    case 'member': {
      // <module>.outputs.<name> or <module>[i].outputs.<name>: the module's declared output type.
      const owner = expr.object.kind === 'member' && expr.object.property === 'outputs' ? expr.object.object : undefined;
      const symbol = owner?.kind === 'index' ? owner.object : owner;
      if (symbol?.kind === 'ident' && !scope.locals.has(symbol.name)) {
        const module = scope.file.modules.get(symbol.name);
        if (module) {
          const output = scope.load(scope.file, module.path).outputs.get(expr.property);
          return output ? declaredType(output.type) : undefined;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The checks.

export interface Problem {
  file: string;
  line: number;
  message: string;
}

const show = (values: Literal[]) => values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(' | ');

/** The sub-expressions of an expression, with the names each one brings into scope (loop and lambda variables). */
function children(e: Expr): { expr: Expr; declares?: string[] }[] {
  switch (e.kind) {
    case 'object':
      return e.entries.map((entry) => ({ expr: entry.value }));
    case 'array':
      return e.items.map((expr) => ({ expr }));
    case 'call':
      return e.args.map((expr) => ({ expr }));
    case 'for':
      return [{ expr: e.source }, { expr: e.body, declares: e.variables }];
    case 'lambda':
      return [{ expr: e.body, declares: e.params }];
    case 'if':
      return [{ expr: e.condition }, { expr: e.body }];
    case 'member':
      return [{ expr: e.object }];
    case 'index':
      return [{ expr: e.object }, { expr: e.index }];
    case 'ternary':
      return [{ expr: e.condition }, { expr: e.whenTrue }, { expr: e.whenFalse }];
    case 'binary':
      return [{ expr: e.left }, { expr: e.right }];
    case 'unary':
      return [{ expr: e.operand }];
    default:
      return [];
  }
}

/** Finds every output a module reference reads that the module does not declare, and every symbol used but not declared. */
function referenceProblems(expr: Expr, scope: Scope, line: number, problems: Problem[]): void {
  const { file } = scope;
  const visit = (e: Expr, locals: Set<string>): void => {
    if (e.kind === 'ident') {
      const known = locals.has(e.name) || file.params.has(e.name) || file.vars.has(e.name) || file.modules.has(e.name) || file.resources.has(e.name);
      if (!known) problems.push({ file: file.file, line, message: `"${e.name}" is not declared` });
    }
    if (e.kind === 'member') {
      // <module>.outputs.<name> or <module>[i].outputs.<name>
      const owner = e.object.kind === 'member' && e.object.property === 'outputs' ? e.object.object : undefined;
      const symbol = owner?.kind === 'index' ? owner.object : owner;
      const module = symbol?.kind === 'ident' && !locals.has(symbol.name) ? file.modules.get(symbol.name) : undefined;
      if (module && !scope.load(file, module.path).outputs.has(e.property)) {
        problems.push({ file: file.file, line, message: `module ${module.symbol} (${module.path}) has no output "${e.property}"` });
      }
    }
    for (const child of children(e)) visit(child.expr, child.declares ? new Set([...locals, ...child.declares]) : locals);
  };
  visit(expr, scope.locals);
}

/** Checks one value against the parameter (or output) it is given to. */
function valueProblems(value: Expr, target: { name: string; type: string; allowed?: Literal[] }, scope: Scope, where: string): string[] {
  const problems: string[] = [];
  if (target.allowed) {
    const possible = possibleLiterals(value, scope);
    if (!possible)
      problems.push(
        `${where}: ${target.name} allows only ${show(target.allowed)}, and the value given cannot be shown to be one of them (pass a literal, a ternary of literals, or a parameter or variable limited to these values)`,
      );
    else {
      const outside = possible.filter((v) => !target.allowed!.includes(v));
      if (outside.length) problems.push(`${where}: ${target.name} allows only ${show(target.allowed)}, but the value given can be ${show(outside)}`);
    }
  }
  const expected = declaredType(target.type);
  const actual = typeOf(value, scope);
  if (expected && actual && expected !== actual) problems.push(`${where}: ${target.name} is ${expected}, but the value given is ${actual}`);
  return problems;
}

/** The `params` object of a module call, through `if (...)` and `[for ...]`, with the loop variables in scope. */
function moduleParams(value: Expr, locals: Set<string>): { params?: Extract<Expr, { kind: 'object' }>; locals: Set<string> } {
  if (value.kind === 'for') return moduleParams(value.body, new Set([...locals, ...value.variables]));
  if (value.kind === 'if') return moduleParams(value.body, locals);
  if (value.kind !== 'object') return { locals };
  const params = value.entries.find((e) => e.key === 'params')?.value;
  return { params: params?.kind === 'object' ? params : undefined, locals };
}

/** Reads and parses files once; `load(from, modulePath)` resolves a module path against the calling file. */
export function loader() {
  const cache = new Map<string, BicepFile>();
  const read = (file: string): BicepFile => {
    if (!cache.has(file)) cache.set(file, parseBicep(fs.readFileSync(file, 'utf8'), file));
    return cache.get(file)!;
  };
  return { read, load: (from: BicepFile, modulePath: string) => read(path.resolve(path.dirname(from.file), modulePath)) };
}

/** Every problem in the module calls and outputs of one parsed file. */
export function checkFile(file: BicepFile, load: (from: BicepFile, modulePath: string) => BicepFile): Problem[] {
  const problems: Problem[] = [];
  const scope: Scope = { file, locals: new Set(), load };
  for (const variable of file.vars.values()) referenceProblems(variable.value, scope, variable.line, problems);
  for (const param of file.params.values()) if (param.defaultValue) referenceProblems(param.defaultValue, scope, param.line, problems);
  for (const resource of file.resources.values()) referenceProblems(resource.value, scope, resource.line, problems);
  for (const module of file.modules.values()) {
    referenceProblems(module.value, scope, module.line, problems);
    let target: BicepFile;
    try {
      target = load(file, module.path);
    } catch (error) {
      problems.push({ file: file.file, line: module.line, message: `module ${module.symbol}: cannot read ${module.path}: ${(error as Error).message}` });
      continue;
    }
    const { params, locals } = moduleParams(module.value, new Set());
    const given = new Map((params?.entries ?? []).map((e) => [e.key, e]));
    const where = `module ${module.symbol} (${module.path})`;
    for (const [name, { value, line }] of given) {
      const param = target.params.get(name);
      if (!param) {
        problems.push({ file: file.file, line, message: `${where}: passes "${name}", which the module does not declare` });
        continue;
      }
      for (const message of valueProblems(value, { name, type: param.type, allowed: allowedValues(param) }, { ...scope, locals }, where))
        problems.push({ file: file.file, line, message });
    }
    for (const param of target.params.values()) {
      const required = !param.defaultValue && !param.type.endsWith('?');
      if (required && !given.has(param.name))
        problems.push({ file: file.file, line: module.line, message: `${where}: the required parameter "${param.name}" is not passed` });
    }
  }
  for (const output of file.outputs.values()) {
    referenceProblems(output.value, scope, output.line, problems);
    for (const message of valueProblems(output.value, { name: output.name, type: output.type }, scope, `output ${output.name}`))
      problems.push({ file: file.file, line: output.line, message });
  }
  for (const param of file.params.values()) {
    if (param.defaultValue)
      for (const message of valueProblems(
        param.defaultValue,
        { name: param.name, type: param.type, allowed: allowedValues(param) },
        scope,
        `default of param ${param.name}`,
      ))
        problems.push({ file: file.file, line: param.line, message });
  }
  return problems;
}

/** Every .bicep file under a folder. */
export function bicepFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return bicepFiles(full);
    return entry.name.endsWith('.bicep') ? [full] : [];
  });
}

/** Parses and checks every .bicep file under `dir`. */
export function checkInfra(dir: string): Problem[] {
  const { read, load } = loader();
  return bicepFiles(dir).flatMap((file) => checkFile(read(file), load));
}
