/** The executions page's filters and how the address holds them: a refresh, a reload and a shared link keep them. */
import type { ErrorFilter, SearchSort, StatusFilter } from '../../api';
import { withQuery } from '../../address';
import { paths } from '../../paths';

export const STATUSES: StatusFilter[] = ['all', 'processing', 'completed', 'failed'];
/**
 * The finder's error filters and orders, in the order the form lists them. Written as records over
 * the API document's types, so a value the API adds fails to compile here until the form offers it.
 */
const ERROR_CHOICES: Record<ErrorFilter, true> = {
  AI_SERVICE: true,
  RATE_LIMIT: true,
  TIMEOUT: true,
  SQL_CONNECTION: true,
  DATABASE_CONSTRAINT: true,
  SCHEMA_MISSING: true,
  BLOB_CONNECTION: true,
  OTHER: true,
  CANCELLED: true,
};
export const ERRORS = Object.keys(ERROR_CHOICES) as ErrorFilter[];
const SORT_LABELS: Record<SearchSort, string> = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  longest: 'Longest first',
  company: 'Company (A-Z)',
};
export const SORTS = Object.entries(SORT_LABELS).map(([value, label]) => ({ value: value as SearchSort, label }));
export const FIELDS = [
  { value: 'tracking', label: 'Tracking id' },
  { value: 'company', label: 'Company' },
  { value: 'email', label: 'Requester email' },
] as const;
export type Field = (typeof FIELDS)[number]['value'];
export const RANGES = [
  { value: '', label: 'Any time', ms: 0 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 3600_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 24 * 3600_000 },
  { value: 'custom', label: 'From… to…', ms: 0 },
] as const;
export type Range = (typeof RANGES)[number]['value'];
export const DEFAULT_LIMIT = 25;

export interface Filters {
  /** One user's executions (a user's page links here with their id). */
  requester: string;
  field: Field;
  q: string;
  status: StatusFilter;
  error: ErrorFilter | '';
  range: Range;
  /** A custom range, as the datetime-local inputs hold it (the browser's local time). */
  from: string;
  to: string;
  sort: SearchSort;
  limit: number;
  cursor: string;
}

const pick = <T extends string>(values: readonly T[], value: string | undefined, fallback: T): T => (values.includes(value as T) ? (value as T) : fallback);

/** A page size the finder takes (1 to 100); anything else, an empty field included, is the default. */
export const limitOf = (n: number) => Math.min(100, Math.max(1, n || DEFAULT_LIMIT));

export function filtersFrom(query: Partial<Record<string, string>>): Filters {
  return {
    requester: (query.requester ?? '').slice(0, 64),
    field: pick(
      FIELDS.map((f) => f.value),
      query.field,
      'company',
    ),
    q: (query.q ?? '').slice(0, 320),
    status: pick(STATUSES, query.status, 'all'),
    error: pick<ErrorFilter | ''>(['', ...ERRORS], query.error, ''),
    range: pick(
      RANGES.map((r) => r.value),
      query.range,
      '',
    ),
    from: query.from ?? '',
    to: query.to ?? '',
    sort: pick(
      SORTS.map((s) => s.value),
      query.sort,
      'newest',
    ),
    limit: limitOf(Number.parseInt(query.limit ?? '', 10)),
    cursor: query.cursor ?? '',
  };
}

const DEFAULTS = filtersFrom({});

/** The filters as the address holds them: only what differs from the defaults. */
export function addressOf(path: string, filters: Filters): string {
  return withQuery(path, Object.fromEntries(Object.entries(filters).filter(([key, value]) => value !== DEFAULTS[key as keyof Filters])));
}

/** Whether the filters narrow the list (the order, the page size and the page do not): an empty list then says "no match", not "nothing yet". */
export const narrows = (filters: Filters) => addressOf('', { ...filters, sort: 'newest', limit: DEFAULT_LIMIT, cursor: '' }) !== '';

/** The creation-time bounds of the filters, as ISO 8601 (a preset counts back from now). */
export function rangeOf(filters: Pick<Filters, 'range' | 'from' | 'to'>, now = Date.now()): { from?: string; to?: string } {
  if (filters.range === 'custom') {
    const at = (local: string) => (local && !Number.isNaN(Date.parse(local)) ? new Date(local).toISOString() : undefined);
    return { from: at(filters.from), to: at(filters.to) };
  }
  const ms = RANGES.find((r) => r.value === filters.range)?.ms ?? 0;
  return ms ? { from: new Date(now - ms).toISOString(), to: new Date(now).toISOString() } : {};
}

/**
 * A link to the executions page with these filters (the failures, the overview and a user's page
 * link to it): read as the page reads its address and written as it writes it, so the page has one encoding.
 */
export const executionsHref = (query: Partial<Record<keyof Filters, string>>) => addressOf(paths.executions, filtersFrom(query));
