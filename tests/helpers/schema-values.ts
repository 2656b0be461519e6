import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

/**
 * Values from a JSON Schema, for tests that hold a document to the code behind it
 * (tests/platform/openapi-validator.test.ts): `valuesOf` generates values from a schema's keywords,
 * `mutationsOf` lists the ways to break one documented constraint of a value, and `admits` is the
 * oracle, an ajv of the test's own that says whether the document admits a value. What a generator
 * cannot follow (an `allOf` of rules across fields, `not`) is left to the oracle: a generated value
 * is valid or not by what `admits` says, never by how it was made.
 */
export type Schema = Record<string, any>;

const oracle = addFormats(new Ajv({ strict: false, allErrors: false }));
const compiled = new WeakMap<object, ValidateFunction>();

/** Whether the schema admits the value (an ajv of the test's own: the document, not the service's validator). */
export function admits(schema: Schema, value: unknown): boolean {
  let check = compiled.get(schema);
  if (!check) {
    check = oracle.compile(schema);
    compiled.set(schema, check);
  }
  return check(value) as boolean;
}

/** Text: mostly printable ASCII, now and then a control character or one outside ASCII (what a document's "string" admits too). */
const textUnit = fc.oneof(
  { arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 -_.:@'), weight: 12 },
  fc.constantFrom('\u0001', '\u007f', 'é', '日', '😀'),
);
const lengthOf = (text: string) => [...text].length;

function stringsOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Math.max(min, 12);
  const fits = (text: string) => lengthOf(text) >= min && lengthOf(text) <= max;
  if (schema.format === 'date-time')
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'email') return fc.emailAddress().filter(fits);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return fc.string({ unit: textUnit, minLength: min, maxLength: Math.min(max, min + 12) });
}

function numbersOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const low = schema.minimum ?? (schema.maximum !== undefined ? schema.maximum - 1000 : -1000);
  const high = schema.maximum ?? low + 2000;
  const ints = fc.integer({ min: Math.ceil(Math.max(low, -1e9)), max: Math.floor(Math.min(high, 1e9)) });
  if (integer) return ints;
  return fc.oneof(ints, fc.double({ min: Math.max(low, -1e6), max: Math.min(high, 1e6), noNaN: true, noDefaultInfinity: true }));
}

/** The schema with a branch of its if/then/else applied (the branch's properties and requirements over its own). */
function withBranch(schema: Schema, branch: Schema): Schema {
  const { if: _if, then: _then, else: _else, ...base } = schema;
  return {
    ...base,
    ...branch,
    type: base.type ?? branch.type,
    properties: { ...base.properties, ...branch.properties },
    required: [...new Set([...(base.required ?? []), ...(branch.required ?? [])])],
  };
}

const typeList = (schema: Schema): string[] | undefined => (schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type]);

/**
 * A schema for values both schemas admit, as far as a generator needs one: alternatives (anyOf)
 * kept where their type fits, objects merged property by property, arrays item by item, the
 * second schema's bounds over the first's. Undefined when their types cannot meet.
 */
export function intersect(a: Schema, b: Schema): Schema | undefined {
  if (a.anyOf) {
    const options = (a.anyOf as Schema[]).map((option) => intersect(option, b)).filter((option): option is Schema => option !== undefined);
    return options.length ? { anyOf: options } : undefined;
  }
  if (b.anyOf) return intersect(b, a);
  const [ta, tb] = [typeList(a), typeList(b)];
  const types =
    ta && tb ? ta.filter((t) => tb.includes(t) || (t === 'integer' && tb.includes('number')) || (t === 'number' && tb.includes('integer'))) : (ta ?? tb);
  if (types && !types.length) return undefined;
  const merged: Schema = { ...a, ...b, ...(types ? { type: types.length === 1 ? types[0] : types } : {}) };
  if (a.properties || b.properties) {
    const keys = new Set([...Object.keys(a.properties ?? {}), ...Object.keys(b.properties ?? {})]);
    merged.properties = Object.fromEntries(
      [...keys].map((key) => [
        key,
        a.properties?.[key] && b.properties?.[key] ? (intersect(a.properties[key], b.properties[key]) ?? {}) : (a.properties?.[key] ?? b.properties[key]),
      ]),
    );
    merged.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  }
  if (a.items && b.items) merged.items = intersect(a.items, b.items) ?? a.items;
  return merged;
}

/**
 * Values of an object schema with an `allOf` of if/then rules (a chart's data items by its type):
 * a value of the schema without them first, then one of the schema with the `then` of every rule
 * whose `if` it meets, the fields the `if`s read kept as they were.
 */
function ruledValuesOf(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const { allOf, ...base } = schema;
  const rules = (allOf as Schema[]).filter((rule) => rule.if && rule.then);
  return valuesOf(base, depth).chain((first) => {
    if (first === null || typeof first !== 'object' || Array.isArray(first)) return fc.constant(first);
    const read = new Set(rules.flatMap((rule) => Object.keys(rule.if.properties ?? {})));
    const kept = { properties: Object.fromEntries([...read].filter((key) => key in first).map((key) => [key, { const: (first as Schema)[key] }])) };
    const ruled = rules
      .filter((rule) => admits(rule.if, first))
      .reduce<Schema | undefined>((at, rule) => at && intersect(at, rule.then), intersect(base, kept));
    return ruled ? valuesOf(ruled, depth) : fc.constant(first);
  });
}

/** Values the schema admits, mostly (see above); `depth` bounds the nesting of schemas without one of their own. */
export function valuesOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.allOf) return ruledValuesOf(schema, depth);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Schema[]).map((option) => valuesOf(option, depth + 1)));
  if (schema.then && schema.else) return fc.oneof(valuesOf(withBranch(schema, schema.then), depth), valuesOf(withBranch(schema, schema.else), depth));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => valuesOf({ ...schema, type }, depth)));
  switch (types[0]) {
    case 'string':
      return stringsOf(schema);
    case 'integer':
    case 'number':
      return numbersOf(schema, types[0] === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
      const items = schema.items ? valuesOf(schema.items, depth + 1) : fc.constantFrom<unknown>(1, 'x', null);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectsOf(schema, depth);
    default:
      return fc.constantFrom<unknown>(1, 'x', true, null);
  }
}

function objectsOf(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.properties) {
    const properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Schema>).map(([key, property]) => [key, valuesOf(property, depth + 1)]),
    );
    return fc.record(properties, { requiredKeys: (schema.required ?? []).filter((key: string) => key in properties) });
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const keys = stringsOf({ minLength: 1, ...(schema.propertyNames ?? {}) }).filter((key) => admits(schema.propertyNames ?? {}, key));
    return fc.dictionary(keys, valuesOf(schema.additionalProperties, depth + 1), {
      minKeys: schema.minProperties ?? 0,
      maxKeys: Math.min(schema.maxProperties ?? 3, (schema.minProperties ?? 0) + 3),
    });
  }
  return fc.constant({});
}

/** One documented constraint broken: where, and how. */
export interface Mutation {
  /** The field (dotted) and what breaks there: "charts.0.type: outside the enum". */
  what: string;
  /** The value with the constraint broken; `choice` picks among the ways (which value outside an enum). */
  apply(value: unknown, choice: number): unknown;
  /**
   * For an enum: every value it lists and those of the enums that share values with it, and the
   * value with the enum's field set to one of them (each judged by the document as a whole: a chart
   * of another type may break a rule of its data).
   */
  near?: unknown[];
  replace?(value: unknown, by: unknown): unknown;
}

/**
 * Every `enum` (and `const`) of these schemas, at any depth: where a value outside one enum is
 * taken from. A value of an enum that shares values with it (the chart types of one body and of
 * another) is the likeliest one a validator also admits without its document saying so.
 */
export function enumsOf(schemas: unknown[]): unknown[][] {
  const found: unknown[][] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const schema = node as Schema;
    if (Array.isArray(schema.enum)) found.push(schema.enum);
    if ('const' in schema) found.push([schema.const]);
    for (const [key, child] of Object.entries(schema)) if (key !== 'enum' && key !== 'const' && key !== 'examples' && key !== 'default') walk(child);
  };
  schemas.forEach(walk);
  return found;
}

/** Values outside `values`: first those of the enums that share a value with it, then a value no document names, then those of every other enum. */
export function outsideOf(values: unknown[], enums: unknown[][]): { outside: unknown[]; siblings: unknown[] } {
  const key = (value: unknown) => JSON.stringify(value);
  const own = new Set(values.map(key));
  const unique = (list: unknown[]) => [...new Map(list.filter((value) => !own.has(key(value))).map((value) => [key(value), value])).values()];
  const siblings = unique(enums.filter((other) => other.some((value) => own.has(key(value)))).flat());
  const rest = unique(enums.flat()).filter((value) => !siblings.some((sibling) => key(sibling) === key(value)));
  return { outside: [...siblings, 'not-a-documented-value', ...rest], siblings };
}

const JSON_TYPES: [type: string, value: unknown][] = [
  ['null', null],
  ['boolean', true],
  ['number', 12.5],
  ['string', 'text'],
  ['array', []],
  ['object', {}],
];
/** The JSON types a schema admits, when it says (by `type`, or by each option of an `anyOf`); undefined when it does not. */
function typesOf(schema: Schema): Set<string> | undefined {
  if (schema.anyOf) {
    const options = (schema.anyOf as Schema[]).map(typesOf);
    return options.every(Boolean) ? new Set(options.flatMap((types) => [...types!])) : undefined;
  }
  if (!schema.type) return undefined;
  const types = new Set<string>(Array.isArray(schema.type) ? schema.type : [schema.type]);
  if (types.has('number')) types.add('integer');
  return types;
}

/** A copy of `value` with `change` made at `path`. */
function changedAt(value: unknown, path: (string | number)[], change: (parent: any, key: string | number) => void): unknown {
  const copy = JSON.parse(JSON.stringify(value));
  if (!path.length) {
    const box = { root: copy };
    change(box, 'root');
    return box.root;
  }
  const parent = path.slice(0, -1).reduce((at: any, key) => at[key], copy);
  change(parent, path[path.length - 1]);
  return copy;
}

/**
 * The ways to break one documented constraint of `value` (a value the schema admits): a value of a
 * type the schema does not admit, a value outside an enum, a required field left out, a field an
 * object closed by `additionalProperties: false` does not have. Alternatives (anyOf, if/then/else)
 * are broken as a whole, by type, and not entered.
 */
export function mutationsOf(schema: Schema, value: unknown, enums: unknown[][] = [], path: (string | number)[] = []): Mutation[] {
  const where = path.join('.') || '(body)';
  const out: Mutation[] = [];
  const types = typesOf(schema);
  if (types)
    for (const [type, wrong] of JSON_TYPES.filter(([type]) => !types.has(type)))
      out.push({ what: `${where}: a ${type}, not ${[...types].join(' or ')}`, apply: (v) => changedAt(v, path, (p, k) => (p[k] = wrong)) });
  if (schema.enum || 'const' in schema) {
    const listed: unknown[] = schema.enum ?? [schema.const];
    const { outside, siblings } = outsideOf(listed, enums);
    out.push({
      what: `${where}: outside the enum`,
      apply: (v, choice) => changedAt(v, path, (p, k) => (p[k] = outside[choice % outside.length])),
      near: [...listed, ...siblings],
      replace: (v, by) => changedAt(v, path, (p, k) => (p[k] = by)),
    });
  }
  if (schema.anyOf || schema.then || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    if (schema.items) value.slice(0, 2).forEach((item, i) => out.push(...mutationsOf(schema.items, item, enums, [...path, i])));
    return out;
  }
  const object = value as Record<string, unknown>;
  for (const key of schema.required ?? [])
    if (key in object) out.push({ what: `${where}: without its required ${key}`, apply: (v) => changedAt(v, [...path, key], (p, k) => delete p[k]) });
  if (schema.additionalProperties === false && schema.properties)
    out.push({ what: `${where}: with a field it does not have`, apply: (v) => changedAt(v, [...path, 'undocumentedField'], (p, k) => (p[k] = 1)) });
  for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    if (key in object) out.push(...mutationsOf(property, object[key], enums, [...path, key]));
  return out;
}
