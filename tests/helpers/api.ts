/** A JSON call to a service by its full URL (a host in another process): the status and the parsed body. */
export async function api(url: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
