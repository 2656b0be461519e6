import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from '@azure/functions';
import { bearerToken } from '../../shared/auth/bearer';
import { config } from '../../shared/config';
import { Code, unauthorized } from '../../shared/http/errors';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison; hashing first makes the lengths equal without leaking the token's length. */
export function tokenMatches(given: string | undefined | null, expected: string): boolean {
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(expected));
}

/**
 * When VISUAL_API_TOKEN is set the API needs `Authorization: Bearer <token>`. QuickChart clients
 * authenticate with their API key instead (`new QuickChart(key)` sends it as `key`), so the
 * QuickChart endpoint passes how to read that value as `alternative`: read only when a token is
 * set and no Bearer came (a POST's body is then parsed for it before the handler parses it).
 */
export function requireVisualToken(request: HttpRequest, alternative?: () => string | undefined): void {
  const expected = config().VISUAL_API_TOKEN;
  if (!expected) return;
  const given = bearerToken(request) ?? alternative?.();
  if (tokenMatches(given, expected)) return;
  throw unauthorized(
    given ? 'The visual API token is not valid' : 'Authorization: Bearer <VISUAL_API_TOKEN> is required',
    given ? Code.AUTH_TOKEN_INVALID : Code.AUTH_REQUIRED,
  );
}
