/**
 * A small reader of the Bicep this repository writes, for the checks a Bicep compiler would make
 * and that no compiler can make here (it is a .NET binary downloaded from GitHub; the workflow in
 * .github/workflows/bicep.yml runs the real one). It parses declarations (param with decorators,
 * var, module, resource, output) and their expressions into a tree, then checks every module call:
 * each argument is a declared parameter, every required parameter is passed, every value passed to
 * an `@allowed` parameter can only be one of its allowed values (literals, each branch of a ternary,
 * parameters and variables followed to their own allowed values or literals), and values whose type
 * is known (literals, parameters, module outputs) match the parameter's type. Outputs are checked
 * against their declared type the same way.
 *
 * It fails loudly on syntax it does not know, rather than skipping it.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Expr =
  | { kind: 'string'; value?: string }
  | { kind: 'number'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' }
  | { kind: 'ident'; name: string }
  | { kind: 'object'; entries: { key: string; value: Expr; line: number }[] }
  | { kind: 'array'; items: Expr[] }
  | { kind: 'for'; variables: string[]; source: Expr; body: Expr }
  | { kind: 'if'; condition: Expr; body: Expr }
  | { kind: 'call'; callee: string; args: Expr[] }
  | { kind: 'member'; object: Expr; property: string }
  | { kind: 'index'; object: Expr; index: Expr }
  | { kind: 'ternary'; condition: Expr; whenTrue: Expr; whenFalse: Expr }
  | { kind: 'binary'; operator: string; left: Expr; right: Expr }
  | { kind: 'unary'; operator: string; operand: Expr }
  | { kind: 'lambda'; params: string[]; body: Expr };

export interface Decorator {
  name: string;
  args: Expr[];
}
export interface ParamDecl {
  name: string;
  /** The declared type as written: string, int, 'a' | 'b', string[]... */
  type: string;
  defaultValue?: Expr;
  decorators: Decorator[];
  line: number;
}
export interface ModuleDecl {
  symbol: string;
  path: string;
  value: Expr;
  line: number;
}
export interface OutputDecl {
  name: string;
  type: string;
  value: Expr;
  line: number;
}
export interface BicepFile {
  file: string;
  params: Map<string, ParamDecl>;
  vars: Map<string, { value: Expr; line: number }>;
  modules: Map<string, ModuleDecl>;
  resources: Map<string, { type: string; value: Expr; line: number }>;
  outputs: Map<string, OutputDecl>;
}

interface Token {
  kind: 'ident' | 'string' | 'number' | 'punct' | 'newline' | 'eof';
  text: string;
  /** String value without interpolation; undefined for an interpolated string. */
  value?: string;
  line: number;
}

const PUNCTUATION = ['=>', '==', '!=', '=~', '!~', '<=', '>=', '&&', '||', '??', '.?', '{', '}', '[', ']', '(', ')', ',', ':', '.', '?', '=', '!', '<', '>', '+', '-', '*', '/', '%', '@', '|'];
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", $: '$' };

/** Splits Bicep text into tokens; comments are dropped, newlines kept (they separate statements and elements). */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const fail = (message: string): never => {
    throw new Error(`line ${line}: ${message}`);
  };
  /** Reads a single-quoted string starting at text[i] === "'"; returns its value or undefined when interpolated. */
  const readString = (): string | undefined => {
    let value = '';
    let interpolated = false;
    i++;
    while (i < text.length && text[i] !== "'") {
      if (text[i] === '\n') fail('unterminated string');
      if (text[i] === '\\') {
        const escaped = ESCAPES[text[i + 1]];
        if (escaped === undefined) fail(`unknown escape \\${text[i + 1]}`);
        value += escaped;
        i += 2;
      } else if (text[i] === '$' && text[i + 1] === '{') {
        interpolated = true;
        i += 2;
        let depth = 1;
        while (depth > 0) {
          if (i >= text.length) fail('unterminated interpolation');
          if (text[i] === "'") readString();
          else {
            if (text[i] === '{') depth++;
            if (text[i] === '}') depth--;
            i++;
          }
        }
      } else value += text[i++];
    }
    if (text[i] !== "'") fail('unterminated string');
    i++;
    return interpolated ? undefined : value;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      tokens.push({ kind: 'newline', text: '\n', line });
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (text.startsWith('//', i)) while (i < text.length && text[i] !== '\n') i++;
    else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated comment');
      line += (text.slice(i, end).match(/\n/g) ?? []).length;
      i = end + 2;
    } else if (text.startsWith("'''", i)) {
      const end = text.indexOf("'''", i + 3);
      if (end < 0) fail('unterminated multi-line string');
      const value = text.slice(i + 3, end);
      tokens.push({ kind: 'string', text: value, value, line });
      line += (value.match(/\n/g) ?? []).length;
      i = end + 3;
    } else if (c === "'") {
      const start = i;
      const value = readString();
      tokens.push({ kind: 'string', text: text.slice(start, i), value, line });
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', text: m[0], line });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'ident', text: m[0], line });
      i += m[0].length;
    } else {
      const op = PUNCTUATION.find((p) => text.startsWith(p, i));
      if (!op) fail(`unexpected character ${JSON.stringify(c)}`);
      tokens.push({ kind: 'punct', text: op!, line });
      i += op!.length;
    }
  }
  tokens.push({ kind: 'eof', text: '', line });
  return tokens;
}

const BINARY_PRECEDENCE: [string[], number][] = [
  [['??'], 1],
  [['||'], 2],
  [['&&'], 3],
  [['==', '!=', '=~', '!~'], 4],
  [['<', '>', '<=', '>='], 5],
  [['+', '-'], 6],
  [['*', '/', '%'], 7],
];
const precedenceOf = (op: string) => BINARY_PRECEDENCE.find(([ops]) => ops.includes(op))?.[1];

class Parser {
  private pos = 0;
  /** Inside parentheses newlines do not end anything. */
  private parenDepth = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    let index = this.pos;
    let seen = -1;
    while (index < this.tokens.length) {
      const token = this.tokens[index];
      if (!(token.kind === 'newline' && this.parenDepth > 0)) seen++;
      if (seen === offset) return token;
      index++;
    }
    return this.tokens[this.tokens.length - 1];
  }

  private next(): Token {
    while (this.parenDepth > 0 && this.tokens[this.pos].kind === 'newline') this.pos++;
    return this.tokens[this.pos++];
  }

  private fail(message: string, token = this.peek()): never {
    throw new Error(`line ${token.line}: ${message} (at ${JSON.stringify(token.text)})`);
  }

  private expect(text: string): Token {
    const token = this.next();
    if (token.text !== text || token.kind === 'string') this.fail(`expected ${JSON.stringify(text)}`, token);
    return token;
  }

  private is(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind !== 'string' && token.text === text;
  }

  private skipNewlines(): void {
    while (this.tokens[this.pos].kind === 'newline') this.pos++;
  }

  private ident(): string {
    const token = this.next();
    if (token.kind !== 'ident') this.fail('expected a name', token);
    return token.text;
  }

  parseFile(file: string): BicepFile {
    const result: BicepFile = { file, params: new Map(), vars: new Map(), modules: new Map(), resources: new Map(), outputs: new Map() };
    let decorators: Decorator[] = [];
    for (;;) {
      this.skipNewlines();
      const token = this.peek();
      if (token.kind === 'eof') break;
      if (this.is('@')) {
        this.next();
        let name = this.ident();
        if (this.is('.')) {
          this.next();
          name = this.ident();
        }
        decorators.push({ name, args: this.is('(') ? this.callArguments() : [] });
        continue;
      }
      const keyword = this.ident();
      const line = token.line;
      switch (keyword) {
        case 'targetScope':
          this.expect('=');
          this.expression();
          break;
        case 'param': {
          const name = this.ident();
          const type = this.typeText();
          const defaultValue = this.is('=') ? (this.next(), this.expression()) : undefined;
          result.params.set(name, { name, type, defaultValue, decorators, line });
          break;
        }
        case 'var': {
          const name = this.ident();
          this.expect('=');
          result.vars.set(name, { value: this.expression(), line });
          break;
        }
        case 'module': {
          const symbol = this.ident();
          const target = this.next();
          if (target.kind !== 'string' || target.value === undefined) this.fail('expected the module path as a plain string', target);
          this.expect('=');
          result.modules.set(symbol, { symbol, path: target.value!, value: this.expression(), line });
          break;
        }
        case 'resource': {
          const symbol = this.ident();
          const type = this.next();
          if (type.kind !== 'string') this.fail('expected the resource type', type);
          if (this.is('existing')) this.next();
          this.expect('=');
          result.resources.set(symbol, { type: type.value ?? type.text, value: this.expression(), line });
          break;
        }
        case 'output': {
          const name = this.ident();
          const type = this.typeText();
          this.expect('=');
          result.outputs.set(name, { name, type, value: this.expression(), line });
          break;
        }
        default:
          this.fail(`unsupported statement "${keyword}"`, token);
      }
      decorators = [];
      const end = this.peek();
      if (end.kind !== 'newline' && end.kind !== 'eof') this.fail('expected the end of the line', end);
    }
    return result;
  }

  /** The tokens of a declared type up to `=` or the end of the line, as text. */
  private typeText(): string {
    const parts: string[] = [];
    while (!this.is('=') && this.peek().kind !== 'newline' && this.peek().kind !== 'eof') parts.push(this.next().text);
    if (!parts.length) this.fail('expected a type');
    return parts.join(' ').replace(/\s*\[\s*\]/g, '[]').replace(/\s*\?$/, '?');
  }

  private callArguments(): Expr[] {
    this.expect('(');
    this.parenDepth++;
    const args: Expr[] = [];
    while (!this.is(')')) {
      args.push(this.expression());
      if (!this.is(')')) this.expect(',');
    }
    this.parenDepth--;
    this.expect(')');
    return args;
  }

  expression(): Expr {
    const lambda = this.lambda();
    if (lambda) return lambda;
    const condition = this.binary(1);
    if (!this.is('?')) return condition;
    this.next();
    const whenTrue = this.expression();
    this.expect(':');
    return { kind: 'ternary', condition, whenTrue, whenFalse: this.expression() };
  }

  private lambda(): Expr | undefined {
    if (this.peek().kind === 'ident' && this.is('=>', 1)) {
      const name = this.ident();
      this.next();
      return { kind: 'lambda', params: [name], body: this.expression() };
    }
    if (!this.is('(')) return undefined;
    // ( a , b ) => ...: look ahead without consuming.
    let offset = 1;
    const params: string[] = [];
    while (this.peek(offset).kind === 'ident') {
      params.push(this.peek(offset).text);
      offset++;
      if (this.is(',', offset)) offset++;
      else break;
    }
    if (!this.is(')', offset) || !this.is('=>', offset + 1)) return undefined;
    for (let i = 0; i <= offset + 1; i++) this.next();
    return { kind: 'lambda', params, body: this.expression() };
  }

  private binary(minPrecedence: number): Expr {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      const precedence = token.kind === 'punct' ? precedenceOf(token.text) : undefined;
      if (precedence === undefined || precedence < minPrecedence) return left;
      this.next();
      left = { kind: 'binary', operator: token.text, left, right: this.binary(precedence + 1) };
    }
  }

  private unary(): Expr {
    if (this.is('!') || this.is('-')) {
      const operator = this.next().text;
      return { kind: 'unary', operator, operand: this.unary() };
    }
    return this.postfix(this.primary());
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      if (this.is('.') || this.is('.?')) {
        this.next();
        expr = { kind: 'member', object: expr, property: this.ident() };
      } else if (this.is('[') && this.peek().line === this.tokens[this.pos - 1]?.line) {
        this.next();
        this.parenDepth++;
        const index = this.expression();
        this.parenDepth--;
        this.expect(']');
        expr = { kind: 'index', object: expr, index };
      } else if (this.is('(') && expr.kind === 'member') {
        // Namespaced function: az.resourceGroup(), sys.concat(...).
        expr = { kind: 'call', callee: expr.property, args: this.callArguments() };
      } else return expr;
    }
  }

  private primary(): Expr {
    const token = this.peek();
    if (token.kind === 'string') {
      this.next();
      return { kind: 'string', value: token.value };
    }
    if (token.kind === 'number') {
      this.next();
      return { kind: 'number', value: Number(token.text) };
    }
    if (token.kind === 'ident') {
      this.next();
      if (token.text === 'true' || token.text === 'false') return { kind: 'bool', value: token.text === 'true' };
      if (token.text === 'null') return { kind: 'null' };
      if (token.text === 'if' && this.is('(')) {
        this.next();
        this.parenDepth++;
        const condition = this.expression();
        this.parenDepth--;
        this.expect(')');
        return { kind: 'if', condition, body: this.expression() };
      }
      if (this.is('(')) return { kind: 'call', callee: token.text, args: this.callArguments() };
      return { kind: 'ident', name: token.text };
    }
    if (this.is('(')) {
      this.next();
      this.parenDepth++;
      const inner = this.expression();
      this.parenDepth--;
      this.expect(')');
      return inner;
    }
    if (this.is('{')) return this.object();
    if (this.is('[')) return this.array();
    return this.fail('expected an expression');
  }

  /** Elements of `{}` and `[]` are separated by newlines or commas; newlines inside them count even within parentheses. */
  private elements<T>(close: string, element: () => T): T[] {
    const savedDepth = this.parenDepth;
    this.parenDepth = 0;
    const items: T[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.is(close)) break;
      items.push(element());
      if (this.is(',')) this.next();
      else if (!this.is(close) && this.peek().kind !== 'newline') this.fail(`expected a newline, "," or "${close}"`);
    }
    this.expect(close);
    this.parenDepth = savedDepth;
    return items;
  }

  private object(): Expr {
    this.expect('{');
    const entries = this.elements('}', () => {
      const key = this.next();
      if (key.kind !== 'ident' && key.kind !== 'string') this.fail('expected a property name', key);
      this.expect(':');
      return { key: key.kind === 'string' ? (key.value ?? key.text) : key.text, value: this.expression(), line: key.line };
    });
    return { kind: 'object', entries };
  }

  private array(): Expr {
    this.expect('[');
    if (this.is('for')) {
      const savedDepth = this.parenDepth;
      this.parenDepth = 0;
      this.next();
      const variables: string[] = [];
      if (this.is('(')) {
        this.next();
        variables.push(this.ident());
        while (this.is(',')) {
          this.next();
          variables.push(this.ident());
        }
        this.expect(')');
      } else variables.push(this.ident());
      this.expect('in');
      const source = this.expression();
      this.expect(':');
      const body = this.expression();
      this.skipNewlines();
      this.expect(']');
      this.parenDepth = savedDepth;
      return { kind: 'for', variables, source, body };
    }
    return { kind: 'array', items: this.elements(']', () => this.expression()) };
  }
}

export function parseBicep(text: string, file = '<text>'): BicepFile {
  return new Parser(tokenize(text)).parseFile(file);
}

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
  const union = param.type.replace(/\?$/, '').split('|').map((part) => part.trim());
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

const STRING_FUNCTIONS = new Set(['string', 'toLower', 'toUpper', 'uniqueString', 'join', 'format', 'guid', 'substring', 'replace', 'trim', 'base64', 'uri', 'subscriptionResourceId', 'resourceId', 'tenantResourceId', 'extensionResourceId', 'newGuid', 'utcNow', 'padLeft', 'dataUri']);
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

/** Finds every output a module reference reads that the module does not declare, and every symbol used but not declared. */
function referenceProblems(expr: Expr, scope: Scope, line: number, problems: Problem[]): void {
  const visit = (e: Expr, locals: Set<string>): void => {
    switch (e.kind) {
      case 'ident': {
        const known = locals.has(e.name) || scope.file.params.has(e.name) || scope.file.vars.has(e.name) || scope.file.modules.has(e.name) || scope.file.resources.has(e.name);
        if (!known) problems.push({ file: scope.file.file, line, message: `"${e.name}" is not declared` });
        return;
      }
      case 'member': {
        const owner = e.object.kind === 'member' && e.object.property === 'outputs' ? e.object.object : undefined;
        const symbol = owner?.kind === 'index' ? owner.object : owner;
        if (symbol?.kind === 'ident' && scope.file.modules.has(symbol.name) && !locals.has(symbol.name)) {
          const target = scope.load(scope.file, scope.file.modules.get(symbol.name)!.path);
          if (!target.outputs.has(e.property)) problems.push({ file: scope.file.file, line, message: `module ${symbol.name} (${scope.file.modules.get(symbol.name)!.path}) has no output "${e.property}"` });
        }
        visit(e.object, locals);
        return;
      }
      case 'object':
        e.entries.forEach((entry) => visit(entry.value, locals));
        return;
      case 'array':
        e.items.forEach((item) => visit(item, locals));
        return;
      case 'for':
        visit(e.source, locals);
        visit(e.body, new Set([...locals, ...e.variables]));
        return;
      case 'lambda':
        visit(e.body, new Set([...locals, ...e.params]));
        return;
      case 'if':
        visit(e.condition, locals);
        visit(e.body, locals);
        return;
      case 'call':
        e.args.forEach((arg) => visit(arg, locals));
        return;
      case 'index':
        visit(e.object, locals);
        visit(e.index, locals);
        return;
      case 'ternary':
        [e.condition, e.whenTrue, e.whenFalse].forEach((x) => visit(x, locals));
        return;
      case 'binary':
        visit(e.left, locals);
        visit(e.right, locals);
        return;
      case 'unary':
        visit(e.operand, locals);
        return;
      default:
        return;
    }
  };
  visit(expr, scope.locals);
}

/** Checks one value against the parameter (or output) it is given to. */
function valueProblems(value: Expr, target: { name: string; type: string; allowed?: Literal[] }, scope: Scope, where: string): string[] {
  const problems: string[] = [];
  if (target.allowed) {
    const possible = possibleLiterals(value, scope);
    if (!possible) problems.push(`${where}: ${target.name} allows only ${show(target.allowed)}, and the value given cannot be shown to be one of them (pass a literal, a ternary of literals, or a parameter or variable limited to these values)`);
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
      for (const message of valueProblems(value, { name, type: param.type, allowed: allowedValues(param) }, { ...scope, locals }, where)) problems.push({ file: file.file, line, message });
    }
    for (const param of target.params.values()) {
      const required = !param.defaultValue && !param.type.endsWith('?');
      if (required && !given.has(param.name)) problems.push({ file: file.file, line: module.line, message: `${where}: the required parameter "${param.name}" is not passed` });
    }
  }
  for (const output of file.outputs.values()) {
    referenceProblems(output.value, scope, output.line, problems);
    for (const message of valueProblems(output.value, { name: output.name, type: output.type }, scope, `output ${output.name}`)) problems.push({ file: file.file, line: output.line, message });
  }
  for (const param of file.params.values()) {
    if (param.defaultValue) for (const message of valueProblems(param.defaultValue, { name: param.name, type: param.type, allowed: allowedValues(param) }, scope, `default of param ${param.name}`)) problems.push({ file: file.file, line: param.line, message });
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
