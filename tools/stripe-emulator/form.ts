/**
 * Decodes Stripe's form encoding (`metadata[userId]=u1&allowed_payment_method_types[0]=card&expand[]=x`)
 * into nested objects and arrays, as Stripe's API reads it.
 */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const [head, ...rest] = rawKey.split('[');
    const path = [head, ...rest.map((part) => part.replace(/\]$/, ''))];
    let node: Record<string, unknown> | unknown[] = root;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]);
      const container = node as Record<string, unknown> & unknown[];
      const key = Array.isArray(node) && segment === '' ? node.length : segment;
      if (last) {
        container[key as never] = value as never;
        return;
      }
      container[key as never] ??= (nextIsIndex ? [] : {}) as never;
      node = container[key as never] as Record<string, unknown> | unknown[];
    });
  }
  return root;
}
