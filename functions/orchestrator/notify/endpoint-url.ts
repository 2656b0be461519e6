import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress, type RefusedKind } from './ip-policy';

/** What decides where webhooks may go: ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE (local only) lets them be http and reach private addresses. */
export interface UrlPolicy {
  allowPrivate: boolean;
}

/** A webhook URL that cannot be used, and why: `invalid` (its form) or `refused` (where it points). */
export class EndpointRefused extends Error {
  constructor(
    readonly reason: 'invalid' | 'refused' | 'unresolvable',
    message: string,
    readonly kind?: RefusedKind,
  ) {
    super(message);
  }
}

export const MAX_URL_LENGTH = 2048;

/** The host name as the resolver and the IP checks take it: an IPv6 literal without its brackets. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * A webhook URL's form: absolute https (http only under the local setting), no user name or
 * password, no fragment. Numeric host spellings (2130706433, 0x7f.1) come out of the WHATWG parser
 * as the dotted address they mean, so the address checks see them as such.
 */
export function parseEndpointUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointRefused('invalid', 'The endpoint URL is not an absolute URL');
  }
  if (raw.length > MAX_URL_LENGTH) throw new EndpointRefused('invalid', `The endpoint URL is longer than ${MAX_URL_LENGTH} characters`);
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new EndpointRefused('invalid', 'The endpoint URL must use https');
  if (url.username || url.password) throw new EndpointRefused('invalid', 'The endpoint URL must not carry a user name or password');
  if (url.hash) throw new EndpointRefused('invalid', 'The endpoint URL must not have a fragment (#...)');
  if (!bareHost(url)) throw new EndpointRefused('invalid', 'The endpoint URL has no host');
  return url;
}

export interface Vetted {
  address: string;
  family: 4 | 6;
}

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Resolves the URL's host now (every address it has) and answers the one to connect to. Refused
 * when any address is loopback, private, link-local, CGNAT, metadata, multicast or reserved (an
 * IPv4-mapped IPv6 address judged by the IPv4 one), unless the local setting allows private ones:
 * a name with one bad address among good ones could be steered to it, so it is refused whole.
 */
export async function resolveEndpoint(url: URL, policy: UrlPolicy, lookup: Lookup = systemLookup): Promise<Vetted> {
  const host = bareHost(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host);
    } catch {
      addresses = [];
    }
    if (!addresses.length) throw new EndpointRefused('unresolvable', `The endpoint host ${host} does not resolve`);
  }
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const verdict = classifyAddress(address);
      if (!verdict.allowed) {
        throw new EndpointRefused(
          'refused',
          `The endpoint host ${host} resolves to ${address}, a ${verdict.kind} address webhooks are not sent to`,
          verdict.kind,
        );
      }
    }
  }
  const [chosen] = addresses;
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
