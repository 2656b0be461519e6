/**
 * The one place the console talks HTTP. Every page calls the typed functions of identity.ts,
 * orchestrator.ts and payment.ts, which call `request` here; the contract work will replace those
 * modules with the generated client without touching the pages.
 */

/** The platform's error body: `{ error, message, code, timestamp, ...details }`. */
export interface ErrorBody {
  error?: string;
  message?: string;
  code?: string;
  details?: { field: string; message: string }[];
  retryAfter?: number;
}

/** A failed call: the HTTP status (0 when the service could not be reached) and the platform's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: ErrorBody = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type ServiceName = 'identity' | 'payment' | 'orchestrator' | 'visual';

/** Where each service's API is (from orchestrator/console/config.json). */
export interface ConsoleConfig {
  services: Record<ServiceName, string>;
}

let bases: Record<ServiceName, string> | undefined;

/** Reads orchestrator/console/config.json, which sits beside the page. */
export async function loadConfig(): Promise<ConsoleConfig> {
  const url = new URL('config.json', document.baseURI).toString();
  const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-cache' }).catch(() => undefined);
  if (!response?.ok)
    throw new ApiError(response?.status ?? 0, 'CONFIG_UNAVAILABLE', 'The console could not read its configuration (config.json). Is the orchestrator running?');
  const config = (await response.json()) as ConsoleConfig;
  bases = config.services;
  return config;
}

/** Supplies the access token for a call and renews it once when a service says it expired. */
export interface TokenSource {
  accessToken(): Promise<string | undefined>;
  /** Called on a 401 from a call that carried a token; answers a new token or undefined (the session is over). */
  renew(): Promise<string | undefined>;
}

let tokens: TokenSource | undefined;
export const useTokenSource = (source: TokenSource | undefined) => {
  tokens = source;
};

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Send the admin's access token (default true). */
  auth?: boolean;
  /** Answer the raw Response (images). */
  raw?: boolean;
  signal?: AbortSignal;
}

export function serviceUrl(service: ServiceName, path: string, query?: RequestOptions['query']): string {
  if (!bases) throw new Error('loadConfig() first');
  const url = new URL(`${bases[service]}${path}`, document.baseURI);
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  return url.toString();
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: ErrorBody = {};
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    // Not JSON (a proxy's page, an empty 404 of the host): the status says enough.
  }
  const message = body.message ?? `The service answered ${response.status} ${response.statusText}`.trim();
  return new ApiError(response.status, body.code ?? `HTTP_${response.status}`, message, body);
}

async function send(service: ServiceName, path: string, options: RequestOptions, token: string | undefined): Promise<Response> {
  const headers: Record<string, string> = { accept: options.raw ? '*/*' : 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(serviceUrl(service, path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
      credentials: 'omit',
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK_ERROR', `The ${service} service could not be reached. Check the connection and try again.`);
  }
}

/** One API call: JSON in and out, the access token attached, renewed once on a 401. */
export async function request<T>(service: ServiceName, path: string, options: RequestOptions = {}): Promise<T> {
  const auth = options.auth !== false;
  const token = auth ? await tokens?.accessToken() : undefined;
  let response = await send(service, path, options, token);
  if (response.status === 401 && token && tokens) {
    const renewed = await tokens.renew();
    if (renewed) response = await send(service, path, options, renewed);
  }
  if (!response.ok) throw await errorOf(response);
  if (options.raw) return response as unknown as T;
  return (await response.json()) as T;
}
