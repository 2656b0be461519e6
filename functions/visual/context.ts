import { VISUAL_SETTINGS } from './settings';
import { defineContext } from '../../shared/context';
import { opsFor } from '../../shared/http/route';
import { HOT_INDEX, SEEN_KEYS, type HotIndex, type SeenKeys } from './cache-index';
import { limitsOf, type Limits } from './limits';
import type { RenderPool } from './render/pool';
import { RENDER_POOL } from './render/renderer';

/**
 * What the visual service's code is handed per invocation: the shared part (it has no database),
 * the request limits of the settings in force, and what the platform makes once and shares: the
 * render pool (threads started on first use) and the result cache's index of this instance.
 */
export const visualContext = defineContext('visual', VISUAL_SETTINGS, ({ platform, config }) => ({
  /** The request limits (VISUAL_MAX_*) of the settings in force. */
  get limits(): Limits {
    return limitsOf(config);
  },
  /** The platform's render pool, started on first use (a pool that cannot start throws RenderError naming why). */
  get renderPool(): RenderPool {
    return platform.get(RENDER_POOL);
  },
  /** The entries this instance stored or renewed lately (cache.ts). */
  get cacheIndex(): HotIndex {
    return platform.get(HOT_INDEX);
  },
  /** The cache keys this instance was asked for lately (cache.ts, cachedOnRepeat). */
  get seenKeys(): SeenKeys {
    return platform.get(SEEN_KEYS);
  },
}));

export type VisualContext = ReturnType<typeof visualContext>;

/** The visual service's operation helper: every handler takes the visual context. */
export const op = opsFor<VisualContext>();
