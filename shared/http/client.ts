import type { HttpRequest } from '@azure/functions';

/** Who made a request and from where, for rate limits and the audit trail. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string;
}

/**
 * The client address, as the platform's front end saw it (never a value the caller wrote): the
 * `client-ip` header, which Azure's App Service front end (Functions, Flex Consumption included)
 * sets on every request and overwrites when a caller sends one, else the last X-Forwarded-For hop,
 * which that front end appends. The earlier hops are whatever the caller wrote. The dev host
 * emulates the same front end.
 */
export function clientIp(request: HttpRequest): string | null {
  const platform = request.headers.get('client-ip')?.trim() || request.headers.get('x-forwarded-for')?.split(',').pop()?.trim();
  return platform ? withoutPort(platform).slice(0, 64) : null;
}

function withoutPort(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1];
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  return ipv4WithPort ? ipv4WithPort[1] : address;
}

export function requestMeta(request: HttpRequest, requestId: string): RequestMeta {
  return { ip: clientIp(request), userAgent: request.headers.get('user-agent')?.slice(0, 400) ?? null, requestId };
}
