/**
 * A small evaluator of ARM template expressions (`[map(variables('apps'), lambda('app', ...))]`), for
 * the functions the compiled infra/main.bicep uses to work out who gets which role: enough to turn
 * the compiled template's role assignments into (principal, scope, role) rows without Azure.
 * Values only Azure knows are symbolic: `reference(<module deployment>).outputs.principalId.value` is
 * the string `principalId(<deployment name>)`, a resource's `reference(<id>).hostName` is
 * `hostName(<id>)`, uniqueString(...) is `token`.
 */

/**
 * A template value: untyped JSON, or what an expression makes of it (a lambda, a symbolic
 * reference). Read by property path like the template itself, hence `any`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ARM values are untyped JSON
export type Value = any;

/** The parts of a compiled ARM template read here (tests/helpers/bicep.ts has the fuller types). */
export interface ArmResource {
  type: string;
  name: string;
  condition?: unknown;
  scope?: string;
  copy?: { name: string; count: string };
  properties?: Value;
  [key: string]: Value;
}

export interface ArmTemplate {
  parameters: Record<string, { type: string; defaultValue?: unknown }>;
  variables?: Record<string, Value>;
  resources: ArmResource[];
  outputs?: Record<string, Value>;
}

interface Scope {
  parameters: Record<string, Value>;
  variables: Record<string, Value>;
  template: ArmTemplate;
  copyIndex: Record<string, number>;
  lambdas: Record<string, Value>;
  /** Variables being evaluated (a cycle would be a bug here, not in the template). */
  evaluating?: Set<string>;
}

type Node =
  | { kind: 'literal'; value: Value }
  | { kind: 'call'; name: string; args: Node[] }
  | { kind: 'member'; of: Node; name: string }
  | { kind: 'index'; of: Node; index: Node };

function parse(text: string): Node {
  let at = 0;
  const space = () => {
    while (text[at] === ' ') at++;
  };
  const expression = (): Node => {
    space();
    let node: Node;
    if (text[at] === "'") {
      let value = '';
      at++;
      for (;;) {
        if (text[at] === "'" && text[at + 1] === "'") {
          value += "'";
          at += 2;
        } else if (text[at] === "'") {
          at++;
          break;
        } else value += text[at++];
      }
      node = { kind: 'literal', value };
    } else if (/[-\d]/.test(text[at])) {
      const match = /^-?\d+(\.\d+)?/.exec(text.slice(at))!;
      at += match[0].length;
      node = { kind: 'literal', value: Number(match[0]) };
    } else {
      const match = /^[A-Za-z_][\w]*/.exec(text.slice(at));
      if (!match) throw new Error(`cannot parse at ${at}: ${text.slice(at, at + 40)}`);
      at += match[0].length;
      space();
      if (text[at] !== '(') throw new Error(`expected ( after ${match[0]}`);
      at++;
      const args: Node[] = [];
      space();
      while (text[at] !== ')') {
        args.push(expression());
        space();
        if (text[at] === ',') at++;
        space();
      }
      at++;
      node = { kind: 'call', name: match[0], args };
    }
    for (;;) {
      if (text[at] === '.') {
        const match = /^\.([A-Za-z_$][\w$]*)/.exec(text.slice(at))!;
        at += match[0].length;
        node = { kind: 'member', of: node, name: match[1] };
      } else if (text[at] === '[') {
        at++;
        const index = expression();
        space();
        at++; // ]
        node = { kind: 'index', of: node, index };
      } else return node;
    }
  };
  const node = expression();
  space();
  if (at !== text.length) throw new Error(`trailing text: ${text.slice(at)}`);
  return node;
}

const isExpression = (value: unknown): value is string => typeof value === 'string' && value.startsWith('[') && !value.startsWith('[[') && value.endsWith(']');

/** A template value (an expression string, or an object or array holding some) evaluated in `scope`. */
export function evaluate(value: Value, scope: Scope): Value {
  if (isExpression(value)) return run(parse(value.slice(1, -1)), scope);
  if (Array.isArray(value)) return value.map((item) => evaluate(item, scope));
  if (value && typeof value === 'object') {
    const result: Record<string, Value> = {};
    for (const [key, item] of Object.entries(value)) {
      // A property loop ({ copy: [{ name, count, input }] }) makes the property `name`.
      if (key === 'copy' && Array.isArray(item) && item.every((c) => c && typeof c === 'object' && 'name' in c && 'count' in c && 'input' in c)) {
        for (const loop of item as { name: string; count: Value; input: Value }[]) {
          const n = evaluate(loop.count, scope) as number;
          result[loop.name] = Array.from({ length: n }, (_, i) => evaluate(loop.input, { ...scope, copyIndex: { ...scope.copyIndex, [loop.name]: i } }));
        }
      } else result[key] = evaluate(item, scope);
    }
    return result;
  }
  return value;
}

class Lambda {
  constructor(
    readonly names: string[],
    readonly body: Node,
    readonly scope: Scope,
  ) {}
  call(...args: Value[]): Value {
    const lambdas = { ...this.scope.lambdas };
    this.names.forEach((name, i) => (lambdas[name] = args[i]));
    return run(this.body, { ...this.scope, lambdas });
  }
}

function variable(name: string, scope: Scope): Value {
  if (!(name in scope.variables)) {
    const evaluating = scope.evaluating ?? new Set<string>();
    if (evaluating.has(name)) throw new Error(`variable cycle at ${name}`);
    evaluating.add(name);
    const declared = scope.template.variables?.[name];
    if (declared === undefined) throw new Error(`no variable ${name}`);
    scope.variables[name] = evaluate(declared, { ...scope, evaluating, lambdas: {} });
    evaluating.delete(name);
  }
  return scope.variables[name];
}

function run(node: Node, scope: Scope): Value {
  if (node.kind === 'literal') return node.value;
  if (node.kind === 'member') {
    const of = run(node.of, scope);
    if (of === undefined || of === null) throw new Error(`.${node.name} of nothing`);
    return of[node.name];
  }
  if (node.kind === 'index') return run(node.of, scope)[run(node.index, scope)];
  const args = () => node.args.map((arg) => run(arg, scope));
  switch (node.name) {
    case 'lambda': {
      const names = node.args.slice(0, -1).map((arg) => run(arg, scope) as string);
      return new Lambda(names, node.args[node.args.length - 1], scope);
    }
    case 'if':
      return run(node.args[0], scope) ? run(node.args[1], scope) : run(node.args[2], scope);
    case 'lambdaVariables':
      return scope.lambdas[run(node.args[0], scope)];
    case 'parameters': {
      const name = run(node.args[0], scope);
      if (!(name in scope.parameters)) throw new Error(`no parameter ${name}`);
      return scope.parameters[name];
    }
    case 'variables':
      return variable(run(node.args[0], scope), scope);
    case 'copyIndex': {
      const [name, offset] =
        node.args.length && typeof run(node.args[0], scope) === 'string'
          ? [run(node.args[0], scope), 0]
          : ['', node.args.length ? run(node.args[0], scope) : 0];
      if (!(name in scope.copyIndex)) throw new Error(`no copy loop ${name || '(resource)'}`);
      return scope.copyIndex[name] + offset;
    }
  }
  const a = args();
  switch (node.name) {
    case 'createArray':
      return a;
    case 'createObject': {
      const object: Record<string, Value> = {};
      for (let i = 0; i < a.length; i += 2) object[a[i]] = a[i + 1];
      return object;
    }
    case 'map':
      return (a[0] as Value[]).map((item, i) => (a[1] as Lambda).call(item, i));
    case 'filter':
      return (a[0] as Value[]).filter((item, i) => (a[1] as Lambda).call(item, i));
    case 'reduce':
      return (a[0] as Value[]).reduce((acc, item) => (a[2] as Lambda).call(acc, item), a[1]);
    case 'flatten':
      return (a[0] as Value[][]).flat();
    case 'union':
      if (Array.isArray(a[0])) return [...new Set(a.flat())];
      return Object.assign({}, ...a);
    case 'contains':
      return Array.isArray(a[0]) ? a[0].includes(a[1]) : typeof a[0] === 'string' ? a[0].includes(a[1]) : a[1] in a[0];
    case 'length':
      return Array.isArray(a[0]) || typeof a[0] === 'string' ? a[0].length : Object.keys(a[0]).length;
    case 'empty':
      return a[0] === '' || a[0] === null || (Array.isArray(a[0]) ? a[0].length === 0 : typeof a[0] === 'object' && Object.keys(a[0]).length === 0);
    case 'not':
      return !a[0];
    case 'and':
      return a.every(Boolean);
    case 'or':
      return a.some(Boolean);
    case 'equals':
      return a[0] === a[1];
    case 'greater':
      return a[0] > a[1];
    case 'greaterOrEquals':
      return a[0] >= a[1];
    case 'less':
      return a[0] < a[1];
    case 'lessOrEquals':
      return a[0] <= a[1];
    case 'utcNow':
      return `utcNow(${a.join(',')})`;
    case 'true':
      return true;
    case 'false':
      return false;
    case 'toLower':
      return String(a[0]).toLowerCase();
    case 'format':
      return String(a[0]).replace(/\{(\d+)\}/g, (_, i) => String(a[1 + Number(i)]));
    case 'concat':
      return Array.isArray(a[0]) ? a.flat() : a.join('');
    case 'json':
      return JSON.parse(a[0]);
    case 'mul':
      return a[0] * a[1];
    case 'add':
      return a[0] + a[1];
    case 'sub':
      return a[0] - a[1];
    case 'div':
      return Math.floor(a[0] / a[1]);
    case 'split':
      return String(a[0]).split(a[1]);
    case 'trim':
      return String(a[0]).trim();
    case 'join':
      return a[0].join(a[1]);
    case 'replace':
      return String(a[0]).split(a[1]).join(a[2]);
    case 'uniqueString':
      return 'token';
    case 'guid':
      return `guid(${a.join(',')})`;
    case 'subscription':
      return { id: '/subscriptions/sub', subscriptionId: 'sub' };
    case 'tenant':
      return { tenantId: 'tenant' };
    case 'resourceGroup':
      return { id: '/subscriptions/sub/resourceGroups/rg', name: 'rg' };
    case 'resourceId':
    case 'subscriptionResourceId':
    case 'extensionResourceId':
      return a.filter((part) => !String(part).startsWith('/subscriptions/')).join('/');
    case 'reference': {
      // A module deployment's outputs: symbolic, named by the deployment.
      const deployment = String(a[0]).replace(/^Microsoft\.Resources\/deployments\//, '');
      const outputs = new Proxy({}, { get: (_, name) => ({ value: `${String(name)}(${deployment})` }) });
      return new Proxy({}, { get: (_, name) => (name === 'outputs' ? outputs : `${String(name)}(${deployment})`) });
    }
  }
  throw new Error(`ARM function ${node.name} is not supported here`);
}

/** The evaluation scope of the top-level template, its parameters at their defaults unless given. */
export function topScope(template: ArmTemplate, given: Record<string, Value | (() => Value)> = {}): Scope {
  const scope: Scope = { parameters: {}, variables: {}, template, copyIndex: {}, lambdas: {} };
  // Each parameter is evaluated when first read: a module parameter the roles never read may use
  // functions this evaluator lacks.
  for (const [name, parameter] of Object.entries(template.parameters)) {
    let value: Value;
    let known = false;
    Object.defineProperty(scope.parameters, name, {
      enumerable: true,
      get: () => {
        if (!known) {
          const supplied = given[name];
          value =
            name in given
              ? typeof supplied === 'function'
                ? supplied()
                : supplied
              : parameter.defaultValue === undefined
                ? `param(${name})`
                : evaluate(parameter.defaultValue, scope);
          known = true;
        }
        return value;
      },
    });
  }
  return scope;
}

/** Evaluates a `copy` property ({ name, count, input }) or a plain value. */
export function parameterValue(spec: Value, scope: Scope): Value {
  // A conditional value compiles to one expression making the whole { value } object.
  if (isExpression(spec)) return (evaluate(spec, scope) as { value: Value }).value;
  if (spec.copy) {
    const [loop] = spec.copy as { name: string; count: string; input: Value }[];
    const count = evaluate(loop.count, scope) as number;
    return Array.from({ length: count }, (_, i) => evaluate(loop.input, { ...scope, copyIndex: { ...scope.copyIndex, [loop.name]: i } }));
  }
  return evaluate(spec.value, scope);
}

/** The scope inside one instance of a module deployment (`index` for a module loop). */
export function moduleScope(deployment: ArmResource, outer: Scope, index?: number): Scope {
  const at: Scope = { ...outer, copyIndex: { ...outer.copyIndex, ...(index === undefined ? {} : { '': index }) } };
  const template = deployment.properties.template as ArmTemplate;
  const given = Object.fromEntries(Object.entries(deployment.properties.parameters ?? {}).map(([name, spec]) => [name, () => parameterValue(spec, at)]));
  return topScope(template, given);
}

/** Each instance of a resource (one, or one per copy index): its scope with copyIndex() set. */
export function instances(resource: ArmResource, scope: Scope): Scope[] {
  const count = resource.copy ? (evaluate(resource.copy.count, scope) as number) : 1;
  const all = resource.copy ? Array.from({ length: count }, (_, i) => ({ ...scope, copyIndex: { ...scope.copyIndex, '': i } })) : [scope];
  return all.filter((at) => resource.condition === undefined || evaluate(resource.condition, at));
}
