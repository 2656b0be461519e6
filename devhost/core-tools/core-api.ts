/**
 * The Azure Functions Node.js worker, as far as our entry point can tell. The real worker answers
 * `require('@azure/functions-core')` with its own API (it proxies `Module.prototype.require`),
 * and @azure/functions, finding that API, leaves "test mode": `app.http(...)` and friends call
 * `registerFunction`, `app.hook.*` call `registerHook`, and the library hands the worker its
 * programming model, which converts every invocation from the worker's RPC form to
 * `HttpRequest`/`InvocationContext` objects and the result back. This module is that API, so a
 * test or a benchmark loads `package.json`'s `main` exactly as Azure does and invokes what it
 * registered through the library's own conversions.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

/** The RPC shapes the worker exchanges with @azure/functions (the subset our functions use). */
export interface RpcTypedData {
  string?: string | null;
  json?: string | null;
  bytes?: Uint8Array | null;
  http?: RpcHttpData | null;
  int?: number | null;
  double?: number | null;
}

export interface RpcHttpData {
  method?: string | null;
  url?: string | null;
  headers?: Record<string, string> | null;
  query?: Record<string, string> | null;
  params?: Record<string, string> | null;
  body?: RpcTypedData | null;
  statusCode?: string | null;
  cookies?: unknown[] | null;
}

export interface RpcBindingInfo {
  type?: string;
  direction?: 'in' | 'out' | 'inout';
  name?: string;
  [property: string]: unknown;
}

export interface FunctionMetadata {
  name: string;
  bindings: Record<string, RpcBindingInfo>;
}

export interface TraceContext {
  traceParent?: string;
  traceState?: string;
  attributes?: Record<string, string>;
}

export interface InvocationInput {
  /** The trigger's payload; the binding name is filled in. */
  trigger: RpcTypedData;
  triggerMetadata?: Record<string, RpcTypedData>;
  traceContext?: TraceContext;
}

export interface InvocationResult {
  returnValue?: RpcTypedData | null;
  /** The error the function (or a hook) threw; the host then answers an HTTP trigger with 500. */
  error?: unknown;
}

type FunctionCallback = (...args: unknown[]) => unknown;
type HookCallback = (context: Record<string, unknown>) => unknown;

interface InvocationModel {
  getArguments(): Promise<{ context: unknown; inputs: unknown[] }>;
  invokeFunction(context: unknown, inputs: unknown[], callback: FunctionCallback): Promise<unknown>;
  getResponse(context: unknown, result: unknown): Promise<{ returnValue?: RpcTypedData | null }>;
}

interface ProgrammingModel {
  name: string;
  version: string;
  getInvocationModel(coreContext: unknown): InvocationModel;
  getCapabilities?(capabilities: Record<string, string>): Promise<Record<string, string>>;
}

export interface RegisteredFunction {
  metadata: FunctionMetadata;
  callback: FunctionCallback;
  /** The trigger binding (`httpTrigger`, `timerTrigger`, `queueTrigger`...), with its name. */
  trigger: RpcBindingInfo & { name: string; type: string };
}

export type LogSink = (level: string, category: string, message: string) => void;

const HOOKS = ['appStart', 'appTerminate', 'preInvocation', 'postInvocation', 'log'] as const;
type HookName = (typeof HOOKS)[number];

/** A W3C traceparent for a new span, in `traceId`'s trace (or a new one). */
export function childTraceParent(traceId?: string): string {
  return `00-${traceId ?? randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

export class FunctionsWorker {
  readonly functions = new Map<string, RegisteredFunction>();
  readonly hooks: Record<HookName, HookCallback[]> = { appStart: [], appTerminate: [], preInvocation: [], postInvocation: [], log: [] };
  readonly appHookData: Record<string, unknown> = {};
  /** Capabilities the app asked for with `app.setup({ capabilities })`, as the worker reports them to the host. */
  capabilities: Record<string, string> = {};
  programmingModel?: ProgrammingModel;
  #installed = false;

  constructor(private readonly logSink: LogSink = () => undefined) {}

  /** Answers `require('@azure/functions-core')` from now on, in this process, as the worker does. */
  install(): this {
    if (this.#installed) return this;
    this.#installed = true;
    const coreApi = {
      version: '3.12.0',
      hostVersion: '4.1040.0',
      registerHook: (name: string, callback: HookCallback) => {
        if (!(HOOKS as readonly string[]).includes(name)) throw new RangeError(`unknown hook ${name}`);
        const list = this.hooks[name as HookName];
        list.push(callback);
        return new Disposable(() => list.splice(list.indexOf(callback), 1));
      },
      setProgrammingModel: (model: ProgrammingModel) => {
        this.programmingModel = model;
      },
      getProgrammingModel: () => this.programmingModel,
      registerFunction: (metadata: FunctionMetadata, callback: FunctionCallback) => {
        if (this.functions.has(metadata.name)) throw new Error(`A function with the name "${metadata.name}" has already been registered.`);
        const trigger = Object.entries(metadata.bindings).find(([, b]) => /Trigger$/.test(String(b.type)));
        if (!trigger) throw new Error(`Function "${metadata.name}" has no trigger binding`);
        this.functions.set(metadata.name, { metadata, callback, trigger: { ...trigger[1], name: trigger[0], type: String(trigger[1].type) } });
        return new Disposable(() => this.functions.delete(metadata.name));
      },
      log: (level: string, category: string, message: string) => this.logSink(level, category, message),
      Disposable,
    };
    const original = Module.prototype.require;
    Module.prototype.require = new Proxy(original, {
      apply(target, thisArg, args) {
        return args[0] === '@azure/functions-core' ? coreApi : Reflect.apply(target, thisArg, args);
      },
    }) as typeof original;
    return this;
  }

  /**
   * What the worker does on start-up: load the file(s) `package.json` `main` names, relative to the
   * function app's folder, then await every `appStart` hook (one that throws fails the start).
   */
  async startApp(appDir: string): Promise<{ entryPoint: string; loadMs: number; appStartMs: number }> {
    this.install();
    const main = JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8')).main as string | undefined;
    if (!main) throw new Error(`${appDir}/package.json has no "main": the worker would find no functions`);
    if (/[*?[{]/.test(main)) throw new Error(`"main" is a glob (${main}); this emulation loads a single entry point`);
    const entryPoint = path.join(appDir, main);
    const loadStarted = performance.now();
    require(entryPoint);
    const loaded = performance.now();
    await this.programmingModel?.getCapabilities?.({}).then((c) => (this.capabilities = c));
    const context = { hookData: {}, appHookData: this.appHookData, functionAppDirectory: appDir };
    for (const hook of this.hooks.appStart) await hook(context);
    return { entryPoint, loadMs: loaded - loadStarted, appStartMs: performance.now() - loaded };
  }

  /** The host's shutdown: every `appTerminate` hook, awaited. */
  async terminate(): Promise<void> {
    const context = { hookData: {}, appHookData: this.appHookData };
    for (const hook of this.hooks.appTerminate) await hook(context);
  }

  /** One invocation as the worker runs it: the programming model's arguments, hooks, the function, its response. */
  async invoke(name: string, input: InvocationInput): Promise<InvocationResult> {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`no function ${name}`);
    if (!this.programmingModel) throw new Error('no programming model was set');
    const invocationId = randomUUID();
    const coreContext = {
      invocationId,
      request: {
        invocationId,
        functionId: name,
        inputData: [{ name: fn.trigger.name, data: input.trigger }],
        triggerMetadata: input.triggerMetadata ?? {},
        traceContext: input.traceContext ?? { traceParent: childTraceParent(), traceState: '', attributes: {} },
      },
      metadata: fn.metadata,
      state: undefined as string | undefined,
      log: (level: string, category: string, message: string) => this.logSink(level, category, message),
    };
    try {
      const model = this.programmingModel.getInvocationModel(coreContext);
      const { context, inputs } = await model.getArguments();
      const hookData: Record<string, unknown> = {};
      const pre = { hookData, appHookData: this.appHookData, invocationContext: context, functionCallback: fn.callback, inputs };
      coreContext.state = 'preInvocationHooks';
      for (const hook of this.hooks.preInvocation) await hook(pre);
      coreContext.state = 'invocation';
      const post: Record<string, unknown> = {
        hookData,
        appHookData: this.appHookData,
        invocationContext: context,
        inputs: pre.inputs,
        result: null,
        error: null,
      };
      try {
        post.result = await model.invokeFunction(context, pre.inputs, pre.functionCallback);
      } catch (error) {
        post.error = error;
      }
      coreContext.state = 'postInvocationHooks';
      for (const hook of this.hooks.postInvocation) await hook(post);
      coreContext.state = undefined;
      if (post.error) return { error: post.error };
      return { returnValue: (await model.getResponse(context, post.result)).returnValue };
    } catch (error) {
      return { error };
    }
  }
}

class Disposable {
  constructor(private readonly callOnDispose: () => void) {}
  static from(...items: { dispose(): void }[]): Disposable {
    return new Disposable(() => items.forEach((item) => item.dispose()));
  }
  dispose(): void {
    this.callOnDispose();
  }
}
