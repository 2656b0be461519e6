/**
 * The platform's typed client: one openapi-fetch client per service, typed by the service's OpenAPI
 * document (client/openapi/<service>.d.ts, written by `npm run client:generate` from the route
 * tables). Paths, parameters, bodies and answers are checked by the compiler: a route that changes
 * shape breaks its callers' build. Used by `npm run demo` (Node) and the console (browser, bundled
 * by esbuild), so it needs nothing but fetch.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths as IdentityPaths } from './openapi/identity';
import type { paths as OrchestratorPaths } from './openapi/orchestrator';
import type { paths as PaymentPaths } from './openapi/payment';
import type { paths as VisualPaths } from './openapi/visual';

export interface ServicePaths {
  identity: IdentityPaths;
  payment: PaymentPaths;
  orchestrator: OrchestratorPaths;
  visual: VisualPaths;
}

export type ServiceName = keyof ServicePaths;

/** One client per service. Each service's paths begin with its name: `client.identity.POST('/identity/auth/login', ...)`. */
export type PlatformClient = { [S in ServiceName]: Client<ServicePaths[S]> };

/** The error envelope every service answers errors with (`code` is the stable part to switch on). */
export type ErrorEnvelope = components['schemas']['Error'];

/** The envelope as a caller reads it: any field may be missing (a proxy's page, a host's bare 404), and NETWORK_ERROR and TIMEOUT are the client's own codes. */
export interface ErrorBody {
  error?: string;
  message?: string;
  code?: ErrorEnvelope['code'] | 'NETWORK_ERROR' | 'TIMEOUT' | (string & {});
  timestamp?: string;
  details?: unknown;
  retryAfter?: number;
  requestId?: string;
  [key: string]: unknown;
}

/** A refused or failed call: the HTTP status (0 when the service could not be reached) and the error envelope. */
export class ApiError extends Error {
  readonly code: string;
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    message = body.message ?? `The service answered ${status}`,
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = body.code ?? `HTTP_${status}`;
  }
}

export interface PlatformClientOptions {
  /** A host serving every service (`http://127.0.0.1:7071`): each service is at `<baseUrl>/<service>`. */
  baseUrl?: string;
  /** Each service's own base URL (`https://id.example.net/identity`, or `/identity` on the page's origin); wins over baseUrl. */
  serviceUrls?: Partial<Record<ServiceName, string>>;
  /** The bearer token of every call: a value, or a function asked before each call (so a renewed token is used at once). */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** Passed to every fetch (the console sets cache and credentials). */
  init?: Omit<ClientOptions, 'baseUrl' | 'headers' | 'fetch'>;
  /** The fetch to send with (tests check every answer against the API documents); globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A service's base URL ends with its name; its document's paths begin with it, so the client's root is the part before. */
function rootOf(service: ServiceName, base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  if (!trimmed.endsWith(`/${service}`)) throw new Error(`the ${service} service's base URL must end with /${service}: ${base}`);
  return trimmed.slice(0, -service.length - 1);
}

/** The client of one service (the console reads its configuration from the orchestrator before it knows where the others are). */
export function serviceClient<S extends ServiceName>(service: S, options: PlatformClientOptions): Client<ServicePaths[S]> {
  const base = options.serviceUrls?.[service] ?? (options.baseUrl === undefined ? undefined : `${options.baseUrl.replace(/\/+$/, '')}/${service}`);
  if (base === undefined) throw new Error(`no base URL for the ${service} service: give baseUrl or serviceUrls.${service}`);
  const client = createClient<ServicePaths[S]>({ ...options.init, baseUrl: rootOf(service, base), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const { token } = options;
  if (token) {
    client.use({
      async onRequest({ request }) {
        const value = typeof token === 'function' ? await token() : token;
        if (value) request.headers.set('authorization', `Bearer ${value}`);
        return request;
      },
    });
  }
  return client;
}

export function platformClient(options: PlatformClientOptions): PlatformClient {
  return {
    identity: serviceClient('identity', options),
    payment: serviceClient('payment', options),
    orchestrator: serviceClient('orchestrator', options),
    visual: serviceClient('visual', options),
  };
}

/**
 * The data of a successful answer; an error answer becomes an ApiError carrying its envelope, and a
 * service that cannot be reached, or does not answer within a timeout signal's time, an ApiError
 * with status 0 (NETWORK_ERROR, TIMEOUT; an aborted call stays an AbortError).
 */
export async function answer<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>, service = 'platform'): Promise<T> {
  let result: Awaited<typeof pending>;
  try {
    result = await pending;
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    if ((error as Error).name === 'TimeoutError')
      throw new ApiError(0, { code: 'TIMEOUT', message: `The ${service} service did not answer in time. Try again.` });
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: `The ${service} service could not be reached. Check the connection and try again.` });
  }
  const { data, error, response } = result;
  if (!response.ok) {
    const body = error && typeof error === 'object' ? (error as ErrorBody) : {};
    throw new ApiError(response.status, body, body.message ?? `The ${service} service answered ${response.status} ${response.statusText}`.trim());
  }
  return data as T;
}
