import { checkAnswer } from './contract';

/**
 * A JSON call to a service by its full URL (a host in another process): the status and the parsed
 * body, after the answer is held to the operation's API document like every other answer a test gets.
 */
export async function api(url: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const method = init.method ?? 'GET';
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  checkAnswer(method, url, res.status, res.headers.get('content-type'), text);
  return { status: res.status, body: JSON.parse(text) as any };
}
