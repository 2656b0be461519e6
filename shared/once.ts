/**
 * A constant computed on first use, for data that depends on nothing but the installed package (a
 * font's character map, the currencies Node knows, a plugin's colour table): computing it at load
 * would slow every cold start, and it never changes once computed. Anything made from settings,
 * keys or requests is a platform member instead (shared/platform.ts).
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * A pure function's result for each argument, computed on first use (a schema compiled once, a
 * package file read once): as with `once`, nothing observable changes. Objects are held weakly.
 */
export function onceEach<K, V>(make: (key: K) => V): (key: K) => V {
  const objects = new WeakMap<object, V>();
  const primitives = new Map<K, V>();
  return (key) => {
    const isObject = typeof key === 'object' && key !== null;
    if (isObject ? objects.has(key) : primitives.has(key)) return (isObject ? objects.get(key) : primitives.get(key)) as V;
    const value = make(key);
    if (isObject) objects.set(key, value);
    else primitives.set(key, value);
    return value;
  };
}
