/**
 * Node's HTTP client for a URL's scheme, loaded with the first request that needs it: Azure's
 * endpoints are https and the local ones (Azurite, the dev host) http, so the other module (TLS for
 * https, about 1 ms of a cold start) never loads for nothing.
 */
export const nodeClient = (protocol: string): typeof import('node:http') => (protocol === 'https:' ? require('node:https') : require('node:http'));
