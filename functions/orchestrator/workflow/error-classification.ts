/** Every failure is classified once, when it is logged, so dashboards aggregate columns instead of parsing messages. */
export const ERROR_PATTERNS = [
  'DATABASE_CONSTRAINT',
  'SCHEMA_MISSING',
  'SQL_CONNECTION',
  'BLOB_CONNECTION',
  'AI_SERVICE',
  'TIMEOUT',
  'RATE_LIMIT',
  'OTHER',
] as const;
export const ERROR_SOURCES = ['SQL_DATABASE', 'AI_SERVICE', 'BLOB_STORAGE'] as const;
export type ErrorPattern = (typeof ERROR_PATTERNS)[number];
/**
 * Marked on an execution an administrator cancelled (its stored health_status and error_pattern):
 * no classification, since a cancellation is no dependency's failure and counts in no error figure.
 */
export const CANCELLED = 'CANCELLED';
export type ErrorSource = (typeof ERROR_SOURCES)[number];

export interface Classification {
  pattern: ErrorPattern;
  /** The dependency that failed; null when the failure is not a dependency's (bad data, a bug). */
  source: ErrorSource | null;
}

/** An error raised while talking to one dependency: the source is known where it happens, not guessed later. */
export class DependencyError extends Error {
  constructor(
    readonly source: ErrorSource,
    readonly cause: unknown,
    message = messageOf(cause),
  ) {
    super(message);
    this.name = 'DependencyError';
  }
}

/** Duck-typed, not `instanceof Error`: native addons (better-sqlite3) and sandboxes raise errors from another realm. */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

function statusOf(error: unknown): number | undefined {
  const e = error as { status?: unknown; statusCode?: unknown } | null;
  const status = e?.status ?? e?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function codeOf(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | null;
  return `${typeof e?.code === 'string' ? e.code : ''} ${typeof e?.name === 'string' ? e.name : ''}`;
}

const RULES: { pattern: ErrorPattern; source: ErrorSource | null; test: (text: string, status?: number) => boolean }[] = [
  { pattern: 'RATE_LIMIT', source: null, test: (t, s) => s === 429 || /rate.?limit|too many requests|\b429\b/i.test(t) },
  { pattern: 'TIMEOUT', source: null, test: (t, s) => s === 408 || s === 504 || /time[d]?.?out|ETIMEDOUT|ESOCKETTIMEDOUT|deadline|aborted/i.test(t) },
  {
    pattern: 'SCHEMA_MISSING',
    source: 'SQL_DATABASE',
    test: (t) => /no such (table|column)|invalid (object|column) name|has no column named|processing_step/i.test(t),
  },
  {
    pattern: 'DATABASE_CONSTRAINT',
    source: 'SQL_DATABASE',
    test: (t) => /constraint|NOT NULL|UNIQUE|FOREIGN KEY|duplicate key|cannot insert the value null/i.test(t),
  },
  {
    pattern: 'SQL_CONNECTION',
    source: 'SQL_DATABASE',
    test: (t) =>
      /SQLITE_(BUSY|CANTOPEN|IOERR|READONLY)|database is locked|readonly database|connection is not open|ConnectionError|Failed to connect|login failed|ESOCKET|tedious/i.test(
        t,
      ),
  },
  { pattern: 'BLOB_CONNECTION', source: 'BLOB_STORAGE', test: (t) => /RestError|blob|container|storage account|AuthorizationFailure/i.test(t) },
  { pattern: 'AI_SERVICE', source: 'AI_SERVICE', test: (t) => /openai|APIError|chat\.completions|completion/i.test(t) },
];

/** Pattern from the error's status, code and message; source from where it was raised when known, else from the pattern. */
export function classifyError(error: unknown): Classification {
  const known = error instanceof DependencyError ? error.source : null;
  const cause = error instanceof DependencyError ? error.cause : error;
  const text = `${codeOf(cause)} ${messageOf(cause)} ${error instanceof DependencyError ? error.message : ''}`;
  const status = statusOf(cause);
  for (const rule of RULES) {
    if (rule.test(text, status)) return { pattern: rule.pattern, source: known ?? rule.source };
  }
  if (known === 'AI_SERVICE') return { pattern: 'AI_SERVICE', source: known };
  if (known === 'BLOB_STORAGE') return { pattern: 'BLOB_CONNECTION', source: known };
  if (known === 'SQL_DATABASE') return { pattern: 'SQL_CONNECTION', source: known };
  return { pattern: 'OTHER', source: null };
}
