import { AsyncLocalStorage } from 'node:async_hooks';
import type { Migration } from 'kysely';
import { parseConfig, type ParseOptions } from './config/parse';
import { PLATFORM_SETTINGS, type Config, type ConfigOf, type SettingTable } from './config/settings';

/** The time, as the platform reads it. */
export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** Uniform numbers in [0, 1): the platform's source of jitter (retry backoffs). */
export type RandomSource = () => number;

type Settings = Record<string, string | undefined>;

/**
 * A thing a platform makes on first use and holds until it closes (a database pool, a client, a
 * worker pool, a cache): declared once, beside the code that uses it, and reached as
 * `platform.get(MEMBER)`, typed. Whatever is made from settings or keys lives here rather than in a
 * module variable, so two platforms in one process (two dev hosts, a test's own) never share it, and
 * closing the platform releases it.
 */
export interface Member<T> {
  /** For messages only: a member is found by its identity, not its name. */
  readonly name: string;
  readonly create: (platform: Platform) => T;
  readonly release?: (value: T) => unknown;
}

export const member = <T>(name: string, create: (platform: Platform) => T, release?: (value: T) => unknown): Member<T> => ({ name, create, release });

/** A member made by asynchronous work whose failure is not kept: the next use tries again. */
export function asyncMember<T>(name: string, create: (platform: Platform) => Promise<T>): Member<Promise<T>> {
  const made: Member<Promise<T>> = member(name, (platform) =>
    create(platform).catch((error: unknown) => {
      void platform.release(made);
      throw error;
    }),
  );
  return made;
}

export interface PlatformOptions extends ParseOptions {
  /**
   * The database's migration history, in order: every service's steps, composed by
   * `functions/migrations.ts`. The embedded database applies it when it opens; a platform built
   * without it (one that serves no service) opens no embedded database.
   */
  migrations?: () => Record<string, Migration>;
  /**
   * The history's names, in order, known without loading it (functions/migration-names.ts): the
   * embedded database that has recorded exactly these opens without loading the history.
   */
  migrationNames?: readonly string[];
}

/**
 * Everything a host gives the services it runs: its settings and their parsed configuration, the
 * clock, and what is made once and shared by every request (the database pool, storage clients,
 * worker pools, caches), each released when the host stops. The Functions entry point and the dev
 * host each build one; a test builds its own (its dev host's), with the settings it wants, instead
 * of editing process.env; and two dev hosts in one process each serve from their own.
 */
export class Platform<C extends Config = Config> {
  private settingsNow: Settings;
  private configNow: C;
  private readonly owned = new Map<Member<unknown>, unknown>();
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
    this.configNow = parseConfig(this.settingsNow, options) as C;
  }

  /**
   * The parsed settings: the platform's, and every setting of the list it was given (typed as the
   * app's whole configuration where the host says so: `new Platform<AppConfig>(..., { settings: SETTINGS })`).
   */
  get config(): C {
    return this.configNow;
  }

  /** Whether this platform parsed every setting of `table` (it was given the app's list, or the table is the platform's own). */
  parsed(table: SettingTable): boolean {
    const given = this.options.settings ?? PLATFORM_SETTINGS;
    return Object.keys(table).every((name) => Object.hasOwn(given, name));
  }

  /**
   * The configuration typed with a service's own settings (functions/<service>/settings.ts): refused
   * on a platform that was not given them, which never parsed them.
   */
  settingsOf<S extends SettingTable>(table: S, owner: string): Config & ConfigOf<S> {
    if (!this.parsed(table)) throw new Error(`This platform was built without the ${owner} settings (functions/settings.ts): hand it { settings: SETTINGS }`);
    return this.configNow as Config & ConfigOf<S>;
  }

  /** The migration history this platform's database follows. */
  get migrations(): Record<string, Migration> {
    if (!this.options.migrations)
      throw new Error('This platform was built without the migration history (functions/migrations.ts), so it cannot open the embedded database');
    return this.options.migrations();
  }

  /** The migration history's names, when the platform was given them (see PlatformOptions). */
  get migrationNames(): readonly string[] | undefined {
    return this.options.migrationNames;
  }

  /** The settings the configuration was parsed from (for `%SETTING%` trigger properties). */
  get settings(): Readonly<Settings> {
    return this.settingsNow;
  }

  /**
   * Changes settings of a running platform (a dev host learning its port or its Azurite; a test
   * pointing a service elsewhere). What was made from the old settings stays until released.
   */
  reconfigure(changes: Settings): C {
    const next = { ...this.settingsNow, ...changes };
    this.configNow = parseConfig(next, this.options) as C;
    this.settingsNow = next;
    return this.configNow;
  }

  /** The platform's `member`, made on first use. */
  get<T>(member: Member<T>): T {
    if (this.owned.has(member as Member<unknown>)) return this.owned.get(member as Member<unknown>) as T;
    const value = member.create(this);
    this.owned.set(member as Member<unknown>, value);
    return value;
  }

  /** Whether `member` is made (a report that must not make it: health reads a pool only once it started). */
  has<T>(member: Member<T>): boolean {
    return this.owned.has(member as Member<unknown>);
  }

  /** Releases one member now (the next use makes it again). */
  async release<T>(member: Member<T>): Promise<void> {
    if (!this.owned.has(member as Member<unknown>)) return;
    const value = this.owned.get(member as Member<unknown>) as T;
    this.owned.delete(member as Member<unknown>);
    await member.release?.(value);
  }

  /** Releases everything it holds, newest first. */
  async close(): Promise<void> {
    for (const member of [...this.owned.keys()].reverse()) await this.release(member).catch(() => undefined);
  }
}

const scope = new AsyncLocalStorage<Platform>();
let processPlatform: Platform | undefined;

/**
 * The platform of the code running now: the one whose invocation this is (every host runs each
 * invocation in its platform: `inPlatform` in shared/functions.ts), else the process's, which only a
 * command or a dev host sets. Nothing builds one on the quiet: code reached outside both (in Azure,
 * anything outside an invocation) is an error that names itself.
 */
export function currentPlatform(): Platform {
  const platform = scope.getStore() ?? processPlatform;
  if (!platform)
    throw new Error('No platform in force: this code runs outside an invocation (wrap it in runInPlatform, or start a command with useProcessSettings)');
  return platform;
}

/** Runs `work` (and everything it starts) in `platform`. */
export function runInPlatform<T>(platform: Platform, work: () => T): T {
  return scope.run(platform, work);
}

/**
 * The platform in force, if any: the invocation's, else the process's, else none (a command or a
 * test that started no host, code that runs before its host does).
 */
export const platformInForce = (): Platform | undefined => scope.getStore() ?? processPlatform;

/**
 * The time now, as the platform of the running code reads it (a test moves it through that
 * platform's clock); the system's time where no platform is in force.
 */
export const currentTime = (): Date => (platformInForce()?.clock ?? SYSTEM_CLOCK).now();
export const currentTimeMs = (): number => currentTime().getTime();

/** Makes `platform` the process's (undefined: the next use builds one from process.env again). */
export function setProcessPlatform(platform: Platform | undefined): void {
  processPlatform = platform;
}

/** The process's platform stops being `platform` (a dev host stopping); another one stays. */
export function leaveProcessPlatform(platform: Platform): void {
  if (processPlatform === platform) processPlatform = undefined;
}
