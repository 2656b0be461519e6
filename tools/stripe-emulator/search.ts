import type Stripe from 'stripe';
import { invalid, type Fields } from './errors';
import { integer, required, text } from './params';

/**
 * Stripe's Search Query Language, the part `customers.search` and friends use: up to 10 clauses
 * `field:'value'` (exact, case-insensitive), `field~'value'` (contains, at least 3 characters) or
 * `-field:'value'` (not), on a field or on `metadata['key']`, joined by spaces, AND or OR (never
 * both in one query, no parentheses). Read by hand, character by character: the query is input.
 *
 * Stripe's search index lags writes by up to a minute (an object just created may not be found
 * yet); the local server finds it at once, so code that must not create twice cannot rely on search
 * alone on Stripe: use an idempotency key, or the id you stored.
 */
interface Clause {
  field: string;
  metadataKey?: string;
  operator: ':' | '~';
  negated: boolean;
  value: string;
}

const MAX_CLAUSES = 10;

function parse(query: string): { clauses: Clause[]; joiner: 'AND' | 'OR' } {
  const clauses: Clause[] = [];
  let joiner: 'AND' | 'OR' | undefined;
  let i = 0;
  const fail = (why: string): never => {
    throw invalid(`Invalid search query: ${why} (at character ${i + 1}).`, 'query');
  };
  const skipSpaces = () => {
    while (query[i] === ' ') i++;
  };
  const isWordChar = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_');
  const quoted = (): string => {
    const quote = query[i];
    if (quote !== "'" && quote !== '"') fail('a value must be quoted');
    i++;
    let value = '';
    while (i < query.length && query[i] !== quote) {
      if (query[i] === '\\' && i + 1 < query.length) i++;
      value += query[i++];
    }
    if (query[i] !== quote) fail('unterminated quoted value');
    i++;
    return value;
  };
  skipSpaces();
  while (i < query.length) {
    if (clauses.length) {
      // AND and OR are keywords in any case, followed by a space.
      const join = query.slice(i, i + 4).toUpperCase() === 'AND ' ? 'AND' : query.slice(i, i + 3).toUpperCase() === 'OR ' ? 'OR' : undefined;
      if (join) {
        if (joiner && joiner !== join) fail('AND and OR cannot be combined in one query');
        joiner = join;
        i += join.length;
        skipSpaces();
      } else joiner ??= 'AND';
    }
    const negated = query[i] === '-';
    if (negated) i++;
    let field = '';
    while (isWordChar(query[i])) field += query[i++];
    if (!field) fail('a field name was expected');
    let metadataKey: string | undefined;
    if (field === 'metadata') {
      if (query[i] !== '[') fail("metadata must name its key: metadata['key']");
      i++;
      metadataKey = quoted();
      if (query[i] !== ']') fail('] was expected');
      i++;
    }
    const operator = query[i] === ':' ? ':' : query[i] === '~' ? '~' : fail('a field is followed by : or ~');
    i++;
    const value = quoted();
    if (operator === '~' && value.length < 3) fail('~ needs at least 3 characters');
    clauses.push({ field, metadataKey, operator, negated, value });
    if (clauses.length > MAX_CLAUSES) fail(`at most ${MAX_CLAUSES} clauses`);
    skipSpaces();
  }
  if (!clauses.length) fail('the query is empty');
  return { clauses, joiner: joiner ?? 'AND' };
}

export type SearchFields<T> = Record<string, (item: T) => string | null | undefined>;

function matches<T extends { metadata?: Record<string, string> | null }>(item: T, clause: Clause, fields: SearchFields<T>): boolean {
  let actual: string | null | undefined;
  if (clause.metadataKey !== undefined) actual = item.metadata?.[clause.metadataKey];
  else {
    const read = Object.hasOwn(fields, clause.field) ? fields[clause.field] : undefined;
    if (!read) throw invalid(`Invalid search query: ${clause.field} is not a searchable field here (${Object.keys(fields).join(', ')}, metadata).`, 'query');
    actual = read(item);
  }
  const have = (actual ?? '').toLowerCase();
  const want = clause.value.toLowerCase();
  const hit = actual !== null && actual !== undefined && (clause.operator === ':' ? have === want : have.includes(want));
  return clause.negated ? !hit : hit;
}

/** One page of search results (`query`, `limit`, `page`: the cursor of `next_page`), newest first. */
export function searchOf<T extends { id: string; metadata?: Record<string, string> | null }>(
  items: T[],
  params: Fields,
  url: string,
  fields: SearchFields<T>,
): Stripe.ApiSearchResult<T> {
  const { clauses, joiner } = parse(required(params, 'query'));
  const limit = integer(params, 'limit') ?? 10;
  if (limit < 1 || limit > 100) throw invalid('Invalid limit: must be between 1 and 100', 'limit');
  const page = text(params, 'page');
  const offset = page === undefined ? 0 : Number(page);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalid(`Invalid page: ${page}`, 'page');
  const found = [...items]
    .reverse()
    .filter((item) => (joiner === 'AND' ? clauses.every((c) => matches(item, c, fields)) : clauses.some((c) => matches(item, c, fields))));
  const data = found.slice(offset, offset + limit);
  const more = found.length > offset + limit;
  return { object: 'search_result', data, has_more: more, next_page: more ? String(offset + limit) : null, url, total_count: found.length };
}
