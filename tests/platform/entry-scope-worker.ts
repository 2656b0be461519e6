/**
 * Driven by entry-scope.test.ts, in a fresh process: loads package.json `main` as the Node worker
 * does (devhost/core-tools/core-api: app.* registers for real), then invokes every function it
 * registered, once each, through the library's own conversions: an HTTP function with a request to
 * its route (path parameters filled in), a timer with a timer, a queue trigger with a message. It
 * listens on CONTEXT_BUILT (shared/context.ts) and prints one line `RESULT {...}`: per invocation,
 * each service context built while it ran (for which service, whether the platform in force then
 * was the context's, which platform, and whether that platform holds this process's settings), and
 * what code outside an invocation found.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { FunctionsWorker, type InvocationInput, type RegisteredFunction } from '../../devhost/core-tools/core-api';
import { PROJECT_ROOT } from '../../devhost/paths';
import { CONTEXT_BUILT, type ServiceContext } from '../../shared/context';
import { currentPlatform, platformInForce, type Platform } from '../../shared/platform';

/** A timer or a queue run that waits on a dependency longer than this is reported as hung. */
const DEADLINE_MS = 30_000;
/** Set by the test to a value of its own: a platform holding it was built from this process's settings. */
const MARK = 'ENTRY_SCOPE_RUN';

export interface BuiltContext {
  service: string;
  /** platformInForce() and currentPlatform(), read where the context was built, are the context's platform. */
  inScope: boolean;
  /** Which platform (numbered in order of first sight). */
  platform: number;
  /** The platform was built from this process's settings (the app's settings, in Azure). */
  fromAppSettings: boolean;
}

export interface Invocation {
  name: string;
  /** The HTTP status, or the error a timer or a queue run ended with (missing storage is fine). */
  outcome: string;
  hung: boolean;
  contexts: BuiltContext[];
}

export interface Outside {
  when: string;
  /** platformInForce() found a platform. */
  inForce: boolean;
  /** What currentPlatform() threw; undefined when it answered a platform. */
  error?: string;
}

const platforms = new WeakMap<Platform, number>();
let seen = 0;
const numbered = (platform: Platform) => platforms.get(platform) ?? (platforms.set(platform, ++seen), seen);

// Which invocation is running: set around each call, it follows everything the call starts.
const invocation = new AsyncLocalStorage<string>();
const built = new Map<string, BuiltContext[]>();

// A subscriber must not throw (the channel would rethrow it on its own, outside the invocation).
subscribe(CONTEXT_BUILT.name, (message) => {
  const ctx = message as ServiceContext;
  let current: Platform | undefined;
  try {
    current = currentPlatform();
  } catch {
    current = undefined;
  }
  const record = {
    service: ctx.service,
    inScope: platformInForce() === ctx.platform && current === ctx.platform,
    platform: numbered(ctx.platform),
    fromAppSettings: ctx.platform.settings[MARK] !== undefined && ctx.platform.settings[MARK] === process.env[MARK],
  };
  const key = invocation.getStore() ?? '(no invocation)';
  built.set(key, [...(built.get(key) ?? []), record]);
});

function outside(when: string): Outside {
  try {
    currentPlatform();
    return { when, inForce: platformInForce() !== undefined };
  } catch (error) {
    return { when, inForce: platformInForce() !== undefined, error: (error as Error).message };
  }
}

const fill = (route: string) => route.replace(/\{\*?([A-Za-z]+)\}/g, (_m, name: string) => `${name}-1`);
const params = (route: string) => Object.fromEntries([...route.matchAll(/\{\*?([A-Za-z]+)\}/g)].map(([, name]) => [name, `${name}-1`]));

/** What the Functions host hands the worker for one run of `fn`. */
function input({ trigger }: RegisteredFunction): InvocationInput {
  switch (trigger.type) {
    case 'httpTrigger': {
      const route = String(trigger.route);
      const method = ((trigger.methods as string[] | undefined) ?? ['GET'])[0].toUpperCase();
      return { trigger: { http: { method, url: `http://localhost:7071/${fill(route)}`, headers: {}, query: {}, params: params(route) } } };
    }
    case 'timerTrigger':
      // The host's .NET casing; the library camel-cases it.
      return { trigger: { json: JSON.stringify({ Schedule: { AdjustForDST: true }, IsPastDue: false }) } };
    case 'queueTrigger':
      return {
        trigger: { json: JSON.stringify({ trackingId: 'entry-scope-unknown' }) },
        triggerMetadata: { Id: { string: 'entry-scope-message' }, DequeueCount: { json: '1' }, PopReceipt: { string: 'receipt' } },
      };
    default:
      throw new Error(`${trigger.type}: not a trigger this app registers`);
  }
}

async function invoke(worker: FunctionsWorker, fn: RegisteredFunction): Promise<Invocation> {
  const name = fn.metadata.name;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), DEADLINE_MS)));
  const result = await Promise.race([invocation.run(name, () => worker.invoke(name, input(fn))), deadline]).finally(() => clearTimeout(timer));
  const outcome =
    result === 'hung'
      ? 'hung'
      : result.error !== undefined
        ? `error: ${(result.error as Error).message ?? String(result.error)}`
        : result.returnValue?.http
          ? String(result.returnValue.http.statusCode)
          : 'done';
  return { name, outcome, hung: result === 'hung', contexts: built.get(name) ?? [] };
}

async function main() {
  const worker = new FunctionsWorker();
  await worker.startApp(PROJECT_ROOT);
  const outsides = [outside('after start-up')];
  const invocations: Invocation[] = [];
  for (const fn of worker.functions.values()) {
    invocations.push(await invoke(worker, fn));
    outsides.push(outside(`after ${fn.metadata.name}`));
  }
  const report = {
    registered: [...worker.functions.keys()],
    invocations,
    outside: outsides,
    builtOutsideInvocations: built.get('(no invocation)') ?? [],
  };
  process.stdout.write(`RESULT ${JSON.stringify(report)}\n`, () => process.exit(0));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
