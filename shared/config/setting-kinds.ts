import type { Parser } from './parsers';

export const SERVICE_NAMES = ['identity', 'payment', 'orchestrator', 'visual'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Where a setting comes from in Azure, which the Bicep parity test checks:
 * - `app`: a plain app setting the Bicep must set for the services that read it;
 * - `secret`: a Key Vault reference the Bicep must set;
 * - `tuning`: has a sensible default; the Bicep may leave it out;
 * - `platform`: set by Azure itself (for example WEBSITE_HOSTNAME);
 * - `local`: laptops and tests only, never set in Azure.
 */
export type Deploy = 'app' | 'secret' | 'tuning' | 'platform' | 'local';

export interface Setting<T> {
  /** The services whose code reads the setting; `all` for cross-cutting settings. */
  services: readonly ServiceName[] | 'all';
  description: string;
  /** default: an embedded default is used when unset; required: start-up fails when unset; optional: undefined when unset. */
  kind: 'default' | 'required' | 'optional';
  default?: string;
  deploy: Deploy;
  /**
   * 'unset': a Key Vault reference that did not resolve counts as unset (only the feature that needs
   * it is off). Only for secrets whose absence closes something (payments, SMTP, the AI key), never
   * for one whose absence opens a route (VISUAL_API_TOKEN): otherwise the services reading it stop.
   */
  unresolved?: 'unset';
  parse: Parser<T>;
}

export interface Meta {
  services: readonly ServiceName[] | 'all';
  description: string;
  deploy: Deploy;
  unresolved?: 'unset';
}

export function withDefault<T>(parse: Parser<T>, value: string, meta: Meta): Setting<T> {
  return { ...meta, kind: 'default', default: value, parse };
}
export function required<T>(parse: Parser<T>, meta: Meta): Setting<T> {
  return { ...meta, kind: 'required', parse };
}
export function optional<T>(parse: Parser<T>, meta: Meta): Setting<T | undefined> {
  return { ...meta, kind: 'optional', parse };
}

/** The services a setting belongs to. */
export const ALL = 'all' as const;
export const ID = ['identity'] as const;
export const PAY = ['payment'] as const;
export const VIS = ['visual'] as const;
export const ORC = ['orchestrator'] as const;
