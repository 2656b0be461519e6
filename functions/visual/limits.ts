import { parseConfig } from '../../shared/config';
import { VISUAL_SETTINGS, type VisualConfig } from './settings';

/** The documented request limits (docs/visual.md), read from settings. */
export interface Limits {
  maxItems: number;
  maxDimension: number;
  maxDatasets: number;
  maxPoints: number;
  maxBodyBytes: number;
}

/** The limits of these settings (the context hands them as `ctx.limits`). */
export function limitsOf(cfg: VisualConfig): Limits {
  return {
    maxItems: cfg.VISUAL_MAX_ITEMS,
    maxDimension: cfg.VISUAL_MAX_DIMENSION,
    maxDatasets: cfg.VISUAL_MAX_DATASETS,
    maxPoints: cfg.VISUAL_MAX_POINTS,
    maxBodyBytes: cfg.VISUAL_MAX_BODY_BYTES,
  };
}

/**
 * The limits of the default settings: what the API document states. An operator's settings change
 * them, and each route validates with those in force (schemas.ts builds both from one declaration).
 */
export const DEFAULT_LIMITS: Limits = limitsOf(parseConfig({}, { requireFor: [], settings: VISUAL_SETTINGS }));

/** Memoises something built from the limits (ajv schemas compile once per distinct limits). */
export function perLimits<T>(build: (l: Limits) => T): (l: Limits) => T {
  const built = new Map<string, T>();
  return (l) => {
    const key = JSON.stringify(l);
    if (!built.has(key)) built.set(key, build(l));
    return built.get(key)!;
  };
}
