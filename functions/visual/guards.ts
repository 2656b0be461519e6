import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from '@azure/functions';
import { bearerToken } from '../../shared/auth/bearer';
import { Code, unauthorized } from '../../shared/http/errors';
import type { Guard } from '../../shared/http/route';
import type { VisualContext } from './context';
import { quickChartKey, withQuickChartError } from './quickchart';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison; hashing first makes the lengths equal without leaking the token's length. */
export function tokenMatches(given: string | undefined | null, expected: string): boolean {
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(expected));
}

/**
 * When VISUAL_API_TOKEN (`expected`) is set the API needs `Authorization: Bearer <token>`. QuickChart
 * clients authenticate with their API key instead (`new QuickChart(key)` sends it as `key`), so the
 * QuickChart endpoint passes how to read that value as `alternative`: read only when a token is
 * set and no Bearer came (a POST's body is then parsed for it before the handler parses it).
 */
export function requireVisualToken(request: HttpRequest, expected: string | undefined, alternative?: () => string | undefined): void {
  if (!expected) return;
  const given = bearerToken(request) ?? alternative?.();
  if (tokenMatches(given, expected)) return;
  throw unauthorized(
    given ? 'The visual API token is not valid' : 'Authorization: Bearer <VISUAL_API_TOKEN> is required',
    given ? Code.AUTH_TOKEN_INVALID : Code.AUTH_REQUIRED,
  );
}

const VISUAL_TOKEN_SCHEME = { name: 'visualToken', definition: { type: 'http', scheme: 'bearer', description: 'VISUAL_API_TOKEN (required when it is set)' } };

/** `Authorization: Bearer <VISUAL_API_TOKEN>` when that setting is set (the orchestrator holds it; browsers never do). */
export const VISUAL_TOKEN: Guard<undefined, VisualContext> = {
  describe: 'a holder of VISUAL_API_TOKEN (Bearer), when the setting is set',
  scheme: VISUAL_TOKEN_SCHEME,
  refusals: [401],
  check: async ({ request, ctx }) => {
    requireVisualToken(request, ctx.config.VISUAL_API_TOKEN);
    return undefined;
  },
};

/** The token as Bearer, or as QuickChart's `key` parameter; a refusal carries X-quickchart-error, as every error of the endpoint does. */
export const QUICKCHART_KEY: Guard<undefined, VisualContext> = {
  describe: "a holder of VISUAL_API_TOKEN, as QuickChart's key parameter or Bearer, when the setting is set",
  scheme: VISUAL_TOKEN_SCHEME,
  refusals: [401],
  check: async ({ request, ctx, rawBody }) => {
    try {
      requireVisualToken(request, ctx.config.VISUAL_API_TOKEN, () => quickChartKey(request, rawBody));
    } catch (error) {
      throw withQuickChartError(error);
    }
    return undefined;
  },
};
