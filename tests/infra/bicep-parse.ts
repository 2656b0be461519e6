/**
 * Reads the Bicep this repository writes into a tree: declarations (param with its decorators, var,
 * module, resource, output) and their expressions (literals, interpolated strings, objects, arrays,
 * for and if, calls, member and index access, operators, ternaries, lambdas). It throws on syntax it
 * does not know rather than skipping it. tests/infra/bicep.ts checks what it reads.
 */
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

const PUNCTUATION = [
  '=>',
  '==',
  '!=',
  '=~',
  '!~',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '.?',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  ',',
  ':',
  '.',
  '?',
  '=',
  '!',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '@',
  '|',
];
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
    return parts
      .join(' ')
      .replace(/\s*\[\s*\]/g, '[]')
      .replace(/\s*\?$/, '?');
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
