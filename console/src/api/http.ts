/**
 * The one place the console talks HTTP: every call goes to a service's public API through the
 * platform's typed client (client/index.ts, generated from the services' OpenAPI documents), so a
 * route that changes shape breaks the console's build, not its pages at run time. Pages call the
 * functions of identity.ts, orchestrator.ts and payment.ts, which call `call` here.
 */
import { answer, ApiError, serviceClient, platformClient, type PlatformClient, type ServiceName } from '../../../client';

export { ApiError, type ServiceName };

/** Where each service's API is (from orchestrator/console/config.json): a path on the console's origin, or another origin's URL. */
export interface ConsoleConfig {
  services: Record<ServiceName, string>;
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

/** Answers carry admin data and tokens: never cached, never sent with cookies (the token is in the Authorization header). */
const INIT = { cache: 'no-store', credentials: 'omit' } as const;

/** No call waits longer than this: a page's refresh must not pile up behind an answer that never comes. */
export const CALL_TIMEOUT_MS = 20_000;
const withTimeout = (request: Request) => fetch(request, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });

let clients: { signedIn: PlatformClient; anonymous: PlatformClient } | undefined;

/** A base as config.json gives it (`/identity` or `https://id.example.net/identity`), made absolute against the page. */
const absolute = (base: string) => new URL(base, document.baseURI).toString();

/**
 * Reads orchestrator/console/config.json from the orchestrator that serves this page (the page sits
 * under <orchestrator>/console/, so the orchestrator's base is the folder above), then makes the
 * clients of the four services from it.
 */
export async function loadConfig(): Promise<ConsoleConfig> {
  const orchestrator = serviceClient('orchestrator', {
    serviceUrls: { orchestrator: absolute('..').replace(/\/$/, '') },
    init: { ...INIT, cache: 'no-cache' },
  });
  const config = await answer(orchestrator.GET('/orchestrator/console/config.json'), 'orchestrator').catch((error: ApiError) => {
    throw new ApiError(
      error.status,
      { code: 'CONFIG_UNAVAILABLE' },
      'The console could not read its configuration (config.json). Is the orchestrator running?',
    );
  });
  const services = config.services;
  const serviceUrls = {
    identity: absolute(services.identity),
    payment: absolute(services.payment),
    orchestrator: absolute(services.orchestrator),
    visual: absolute(services.visual),
  };
  clients = {
    signedIn: platformClient({ serviceUrls, init: INIT, fetch: withTimeout, token: () => tokens?.accessToken() }),
    anonymous: platformClient({ serviceUrls, init: INIT, fetch: withTimeout }),
  };
  return { services: serviceUrls };
}

/** The JSON body of an operation's 200 answer, as its API document types it. */
export type Ok<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;

/** What every call of the typed client answers. */
type Answer<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/**
 * One API call through the typed client: the admin's access token attached (unless `auth` is
 * false), renewed once on a 401; an error answer throws ApiError with the platform's envelope.
 */
export async function call<T>(service: ServiceName, send: (client: PlatformClient) => Answer<T>, auth = true): Promise<T> {
  if (!clients) throw new Error('loadConfig() first');
  const client = auth ? clients.signedIn : clients.anonymous;
  const hadToken = auth && Boolean(await tokens?.accessToken());
  try {
    return await answer(send(client), service);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401 && hadToken && tokens && (await tokens.renew()))) throw error;
    return answer(send(client), service);
  }
}
