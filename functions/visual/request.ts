import type { HttpRequest } from '@azure/functions';
import { readBody } from '../../shared/http/body';
import { badRequest } from '../../shared/http/errors';

/** Parses a JSON body within the size limit (413 above it); shape checks are the caller's, so spec 7.3's messages win. */
export async function readJsonValue(request: HttpRequest, limitBytes: number): Promise<unknown> {
  const bytes = await readBody(request, limitBytes);
  if (bytes.length === 0) throw badRequest('Request body is empty; a JSON object is expected', 'INVALID_JSON');
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw badRequest(`Request body is not valid JSON: ${(error as Error).message}`, 'INVALID_JSON');
  }
}
