import { channel } from 'node:diagnostics_channel';
import type { Config, ConfigOf, ServiceName, SettingTable } from './config';
import type { Logger } from './logging';
import { planTable, type PlanDefinition } from './plans';
import type { Clock, Platform } from './platform';
import { STORAGE, type Storage } from './storage';

/**
 * What every service's code is handed, built once per invocation from the platform serving it:
 * its settings, the clock, the invocation's logger, and the platform itself for what is made once
 * and shared (pools, clients, caches). A service extends it with its own dependencies (its
 * database, Stripe, identity, storage, the AI model) in its `context.ts`; its operations, timers
 * and queue handlers receive that context and hand it to the domain functions that need it, so a
 * function's signature says what it reaches.
 */
export interface ServiceContext<C extends Config = Config> {
  readonly service: ServiceName;
  readonly platform: Platform;
  /** The platform's settings and the service's own (functions/<service>/settings.ts). */
  readonly config: C;
  readonly clock: Clock;
  readonly log: Logger;
  /** The time now, on the platform's clock (a test moves it). */
  now(): Date;
  /** The platform's data account (PLATFORM_STORAGE, else AzureWebJobsStorage's: shared/storage-account.ts, dataStorage): clients made on first use. */
  readonly storage: Storage;
  /** The plan table (PLANS_JSON, else the defaults). */
  readonly plans: readonly PlanDefinition[];
}

/** Builds a service's context for one invocation. */
export type ContextFactory<C extends ServiceContext = ServiceContext> = (platform: Platform, log: Logger) => C;

/**
 * A service's context factory: the shared part, with the service's own settings typed, plus what
 * `extend` adds. `extend`'s getters stay getters (a dependency is made on first use, so a health
 * probe or a refused request opens no database and loads no client it does not need).
 */
export function defineContext<S extends SettingTable, X extends object>(
  service: ServiceName,
  settings: S,
  extend: (base: ServiceContext<Config & ConfigOf<S>>) => X,
): ContextFactory<ServiceContext<Config & ConfigOf<S>> & X> {
  return (platform, log) => {
    const config = platform.settingsOf(settings, service);
    const base: ServiceContext<Config & ConfigOf<S>> = {
      service,
      platform,
      config,
      clock: platform.clock,
      log,
      now: () => platform.clock.now(),
      get storage() {
        return platform.get(STORAGE);
      },
      get plans() {
        return planTable(config.PLANS_JSON);
      },
    };
    const context = Object.defineProperties(base, Object.getOwnPropertyDescriptors(extend(base))) as ServiceContext<Config & ConfigOf<S>> & X;
    if (CONTEXT_BUILT.hasSubscribers) CONTEXT_BUILT.publish(context);
    return context;
  };
}

/**
 * Each context as it is built, for whoever listens (the test that proves every registered function
 * runs in its service's context, in scope); publishing to a channel nobody listens to costs nothing.
 */
export const CONTEXT_BUILT = channel('platform.context-built');

/** The context of code that needs only the shared part (the API reference routes). */
export const baseContext = (service: ServiceName): ContextFactory => defineContext(service, {}, () => ({}));
