import type { ErrorCode } from '../../shared/http/error-codes';

/**
 * The answer is the error envelope with this status and this code. Every error check names the
 * code: a status alone passes any refusal with that status (an inactive account where a revoked
 * session was meant, a schema error where a signature error was), so it lets regressions through.
 */
export function expectError(res: { status: number; body: any }, status: number, code: ErrorCode): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: expect.objectContaining({ error: expect.any(String), message: expect.any(String), code, timestamp: expect.any(String) }),
  });
}

/** expectError on a fetch Response (its body is read from a clone, so the caller may still read it); answers the body. */
export async function expectErrorAnswer(res: Response, status: number, code: ErrorCode): Promise<any> {
  const text = await res.clone().text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: compared as text, so the failure shows what came instead of the envelope.
  }
  expectError({ status: res.status, body }, status, code);
  return body;
}
