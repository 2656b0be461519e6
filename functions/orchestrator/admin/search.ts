import type { Expression, SqlBool } from 'kysely';
import { Code, badRequest } from '../../../shared/http/errors';
import type { Infer } from '../../../shared/http/schemas';
import { containsIgnoringCase, first, isMssql, sql, toIso, type AnyKysely } from '../../../shared/sql/dialect';
import type { EXECUTION_SEARCH_QUERY, SearchSort } from '../schemas';
import { EXECUTION_COLUMNS, executionView } from './execution-view';
import type { Reads } from './queries';

/** The finder's query, as its schema (EXECUTION_SEARCH_QUERY) checks it, defaults filled in. */
export type ExecutionSearch = Infer<typeof EXECUTION_SEARCH_QUERY>;

export type Key = { expression: Expression<unknown>; direction: 'asc' | 'desc'; value: (row: Row) => string | number };
type Row = Record<(typeof EXECUTION_COLUMNS)[number] | 'requested_by', unknown> & { tracking_id: string };

/**
 * The order of each sort, ending on tracking_id so every row has one place: the keys a cursor
 * carries. Each is served by an index (created_at; company_name with created_at and tracking_id;
 * requested_by with created_at for a user's reports); `longest` sorts unfinished executions
 * (no duration yet) last.
 */
export function keysOf(sort: SearchSort): Key[] {
  const created = (direction: 'asc' | 'desc'): Key => ({ expression: sql.ref('created_at'), direction, value: (r) => toIso(r.created_at as string)! });
  const trackingId = (direction: 'asc' | 'desc'): Key => ({ expression: sql.ref('tracking_id'), direction, value: (r) => r.tracking_id });
  switch (sort) {
    case 'newest':
      return [created('desc'), trackingId('desc')];
    case 'oldest':
      return [created('asc'), trackingId('asc')];
    case 'longest':
      return [{ expression: sql`coalesce(${sql.ref('duration_ms')}, -1)`, direction: 'desc', value: (r) => Number(r.duration_ms ?? -1) }, trackingId('desc')];
    case 'company':
      return [{ expression: sql.ref('company_name'), direction: 'asc', value: (r) => String(r.company_name) }, created('desc'), trackingId('desc')];
  }
}

/** An opaque cursor: the sort and the keys of the last row of a page. */
export const encodeCursor = (sort: SearchSort, values: (string | number)[]) => Buffer.from(JSON.stringify({ s: sort, k: values })).toString('base64url');

export function decodeCursor(cursor: string, sort: SearchSort, keys: Key[]): (string | number)[] {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown; k?: unknown };
    const values = parsed.k;
    if (parsed.s === sort && Array.isArray(values) && values.length === keys.length && values.every((v) => typeof v === 'string' || typeof v === 'number')) {
      return values as (string | number)[];
    }
  } catch {
    // falls through to the refusal
  }
  throw badRequest('`cursor` is not a cursor of this sort: start again without it.', Code.VALIDATION_FAILED, {
    details: [{ field: 'cursor', problem: 'unknown cursor' }],
  });
}

/**
 * Rows after the cursor's row in the sort's order: (k1 beyond v1) or (k1 = v1 and k2 beyond v2)
 * or ..., which both dialects evaluate over the sort's index.
 */
export function after(keys: Key[], values: (string | number)[]) {
  const beyond = (k: Key, v: string | number) => sql<SqlBool>`${k.expression} ${sql.raw(k.direction === 'desc' ? '<' : '>')} ${v}`;
  const equal = (k: Key, v: string | number) => sql<SqlBool>`${k.expression} = ${v}`;
  const branches = keys.map((key, i) => sql.join([...keys.slice(0, i).map((k, j) => equal(k, values[j])), beyond(key, values[i])], sql` and `));
  return sql<SqlBool>`(${sql.join(
    branches.map((b) => sql`(${b})`),
    sql` or `,
  )})`;
}

/**
 * Whether a column starts with `prefix` (letters, digits, `-` and `_` only, as tracking ids are).
 * SQLite compares text byte by byte, so a range over the index; Azure SQL's collations may order
 * `-` by word-sort rules, so LIKE there, which it also serves from the index, with `_` written as
 * the one-character set `[_]` (the other characters are not special to LIKE).
 */
function startsWith(database: AnyKysely, column: string, prefix: string) {
  if (isMssql(database)) return sql<SqlBool>`${sql.ref(column)} like ${`${prefix.replace(/_/g, '[_]')}%`}`;
  return sql<SqlBool>`(${sql.ref(column)} >= ${prefix} and ${sql.ref(column)} < ${`${prefix}\uffff`})`;
}

/**
 * GET api/admin/executions: executions found by tracking id (prefix), company (contains), the users
 * who requested them, status, error and creation time range, in one of four orders, a page at a
 * time with a cursor (no offsets: a page reads its rows and no more, however deep).
 */
export async function searchExecutions(ctx: Reads, query: ExecutionSearch, now: Date) {
  const database = ctx.db;
  const keys = keysOf(query.sort);
  let q = database.selectFrom('orchestrator_executions').select([...EXECUTION_COLUMNS, 'requested_by']);
  if (query.tracking_id) q = q.where(startsWith(database, 'tracking_id', query.tracking_id));
  if (query.company) q = q.where(containsIgnoringCase(database, 'company_name', query.company));
  if (query.requested_by) q = q.where('requested_by', 'in', query.requested_by.split(','));
  if (query.status !== 'all') q = q.where('processing_status', '=', query.status);
  if (query.error) q = q.where('error_pattern', '=', query.error);
  if (query.from) q = q.where('created_at', '>=', new Date(query.from).toISOString());
  if (query.to) q = q.where('created_at', '<', new Date(query.to).toISOString());
  if (query.cursor) q = q.where(after(keys, decodeCursor(query.cursor, query.sort, keys)));
  for (const key of keys) q = q.orderBy(key.expression, key.direction);
  // One row more than the page says whether there is a next page.
  const rows = (await first(database, q, query.limit + 1).execute()) as unknown as Row[];
  const pageRows = rows.slice(0, query.limit);
  const last = pageRows.at(-1);
  // The answer names the filters as they were always answered: trackingId and requestedBy.
  const { tracking_id, requested_by, ...rest } = query;
  const filters = Object.fromEntries(
    Object.entries({ ...rest, trackingId: tracking_id, requestedBy: requested_by, cursor: undefined, limit: query.limit }).filter(
      ([, v]) => v !== undefined && v !== '' && v !== null,
    ),
  );
  return {
    success: true,
    generated_at: now.toISOString(),
    filters,
    executions: pageRows.map((row) => ({ ...executionView(row as never, now), requested_by: row.requested_by as string })),
    next_cursor:
      rows.length > query.limit && last
        ? encodeCursor(
            query.sort,
            keys.map((k) => k.value(last)),
          )
        : null,
  };
}
