import type { Guard } from '../../shared/http/route';
import { requireVisualToken } from './auth';
import { quickChartKey, withQuickChartError } from './quickchart';

const VISUAL_TOKEN_SCHEME = { name: 'visualToken', definition: { type: 'http', scheme: 'bearer', description: 'VISUAL_API_TOKEN (required when it is set)' } };

/** `Authorization: Bearer <VISUAL_API_TOKEN>` when that setting is set (the orchestrator holds it; browsers never do). */
export const VISUAL_TOKEN: Guard<undefined> = {
  describe: 'a holder of VISUAL_API_TOKEN (Bearer), when the setting is set',
  scheme: VISUAL_TOKEN_SCHEME,
  refusals: [401],
  check: async ({ request }) => {
    requireVisualToken(request);
    return undefined;
  },
};

/** The token as Bearer, or as QuickChart's `key` parameter; a refusal carries X-quickchart-error, as every error of the endpoint does. */
export const QUICKCHART_KEY: Guard<undefined> = {
  describe: "a holder of VISUAL_API_TOKEN, as QuickChart's key parameter or Bearer, when the setting is set",
  scheme: VISUAL_TOKEN_SCHEME,
  refusals: [401],
  check: async ({ request, rawBody }) => {
    try {
      requireVisualToken(request, () => quickChartKey(request, rawBody));
    } catch (error) {
      throw withQuickChartError(error);
    }
    return undefined;
  },
};
