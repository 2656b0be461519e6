import { AsyncLocalStorage } from 'node:async_hooks';
import type { Migration } from 'kysely';
import { parseConfig, type ParseOptions } from './config/parse';
import type { Config } from './config/settings';

/** The time, as the platform reads it. */
export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** Uniform numbers in [0, 1): the platform's source of jitter (retry backoffs). */
export type RandomSource = () => number;

type Settings = Record<string, string | undefined>;

export interface PlatformOptions extends ParseOptions {
  /**
   * The database's migration history, in order: every service's steps, composed by
   * `functions/migrations.ts`. The embedded database applies it when it opens; a platform built
   * without it (one that serves no service) opens no embedded database.
   */
  migrations?: () => Record<string, Migration>;
}

/**
 * Everything a host gives the services it runs: its settings and their parsed configuration, the
 * clock, and what is made once and shared by every request (the database pool, storage clients,
 * worker pools, caches), each released when the host stops. The Functions entry point and the dev
 * host each build one; a test builds its own (its dev host's), with the settings it wants, instead
 * of editing process.env; and two dev hosts in one process each serve from their own.
 */
export class Platform {
  private settingsNow: Settings;
  private configNow: Config;
  private readonly owned = new Map<string, { value: unknown; release?: (value: unknown) => unknown }>();
  /**
   * Where jitter comes from: Math.random, unless a test sets a seeded source so that a delay drawn
   * at random is known in advance (and a backoff that stopped growing shows).
   */
  random: RandomSource = Math.random;

  constructor(
    settings: Settings,
    readonly clock: Clock = SYSTEM_CLOCK,
    private readonly options: PlatformOptions = {},
  ) {
    this.settingsNow = { ...settings };
    this.configNow = parseConfig(this.settingsNow, options);
  }

  get config(): Config {
    return this.configNow;
  }

  /** The migration history this platform's database follows. */
  get migrations(): Record<string, Migration> {
    if (!this.options.migrations)
      throw new Error('This platform was built without the migration history (functions/migrations.ts), so it cannot open the embedded database');
    return this.options.migrations();
  }

  /** The settings the configuration was parsed from (for `%SETTING%` trigger properties). */
  get settings(): Readonly<Settings> {
    return this.settingsNow;
  }

  /**
   * Changes settings of a running platform (a dev host learning its port or its Azurite; a test
   * pointing a service elsewhere). What was made from the old settings stays until released.
   */
  reconfigure(changes: Settings): Config {
    const next = { ...this.settingsNow, ...changes };
    this.configNow = parseConfig(next, this.options);
    this.settingsNow = next;
    return this.configNow;
  }

  /** A thing this platform owns, made on first use; `release` runs when the platform closes. */
  own<T>(key: string, create: () => T, release?: (value: T) => unknown): T {
    const found = this.owned.get(key);
    if (found) return found.value as T;
    const value = create();
    this.owned.set(key, { value, release: release as ((value: unknown) => unknown) | undefined });
    return value;
  }

  /** Releases one owned thing now (the next use makes it again). */
  async release(key: string): Promise<void> {
    const found = this.owned.get(key);
    if (!found) return;
    this.owned.delete(key);
    await found.release?.(found.value);
  }

  /** Releases everything it owns, newest first. */
  async close(): Promise<void> {
    for (const key of [...this.owned.keys()].reverse()) await this.release(key).catch(() => undefined);
  }
}

const scope = new AsyncLocalStorage<Platform>();
let processPlatform: Platform | undefined;

/**
 * The platform of the code running now: the one whose invocation this is (a dev host runs each
 * invocation in its own), else the process's (the Functions entry point's, a CLI's, the dev host
 * started last), made from process.env on first use.
 */
export function currentPlatform(): Platform {
  return scope.getStore() ?? (processPlatform ??= new Platform(process.env));
}

/** Runs `work` (and everything it starts) in `platform`. */
export function runInPlatform<T>(platform: Platform, work: () => T): T {
  return scope.run(platform, work);
}

/** Makes `platform` the process's (undefined: the next use builds one from process.env again). */
export function setProcessPlatform(platform: Platform | undefined): void {
  processPlatform = platform;
}

/** The process's platform stops being `platform` (a dev host stopping); another one stays. */
export function leaveProcessPlatform(platform: Platform): void {
  if (processPlatform === platform) processPlatform = undefined;
}
