import { cell } from './markdown';
import { ERROR_CODES, statusesOf, type ErrorCode, type ErrorCodeEntry } from '../shared/http/error-codes';
import { STATUS_NAMES } from '../shared/http/errors';

/** The error-code table of docs/architecture.md, generated from the one list so it cannot drift. */
export function errorCodeTable(): string {
  const rows = (Object.entries(ERROR_CODES) as [ErrorCode, ErrorCodeEntry][]).map(([code, entry]) => {
    const statuses = statusesOf(code);
    const error = entry.error ?? statuses.map((s) => STATUS_NAMES[s]).join(' / ');
    const by = entry.by === 'all' ? 'all' : entry.by.join(', ');
    return `| \`${code}\` | ${statuses.join(', ')} | ${cell(error)} | ${by} | ${cell(entry.meaning)} |`;
  });
  return ['| Code | Status | `error` | Answered by | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
