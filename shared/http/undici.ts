/**
 * undici, the keep-alive HTTP client of the calls between services (its `request` costs about a
 * third of `fetch` per call), loaded with the first such call: a cold start's health call makes
 * none, and identity never calls another service.
 */
export const undici = () => require('undici') as typeof import('undici');
