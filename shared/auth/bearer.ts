import type { HttpRequest } from '@azure/functions';

/** The token of `Authorization: Bearer <token>`, or undefined when the header is absent or of another form. */
export function bearerToken(request: HttpRequest): string | undefined {
  const header = request.headers.get('authorization');
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header.trim()) : null;
  return match?.[1];
}
