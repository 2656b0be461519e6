/**
 * ASP.NET route templates as the Functions host reads them: literal segments, `{name}`,
 * optional `{name?}`, constrained `{name:int}` (also alpha, bool, guid, long, double), and a
 * trailing catch-all `{*rest}`. Matching is case-insensitive on literals, as in ASP.NET.
 */
export interface CompiledRoute {
  template: string;
  match(path: string): Record<string, string> | null;
}

const CONSTRAINTS: Record<string, RegExp> = {
  int: /^-?\d+$/,
  long: /^-?\d+$/,
  double: /^-?\d+(\.\d+)?$/,
  bool: /^(true|false)$/i,
  alpha: /^[a-z]+$/i,
  guid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
};

type Segment =
  | { kind: 'literal'; value: string }
  | { kind: 'param'; name: string; optional: boolean; constraint?: RegExp }
  | { kind: 'catchAll'; name: string };

function parseSegment(raw: string, template: string): Segment {
  const m = /^\{(\*?)([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?(\?)?\}$/.exec(raw);
  if (!m) {
    if (/[{}]/.test(raw)) throw new Error(`Route "${template}": unsupported segment "${raw}"`);
    return { kind: 'literal', value: raw.toLowerCase() };
  }
  const [, star, name, constraintName, optional] = m;
  if (star) return { kind: 'catchAll', name };
  let constraint: RegExp | undefined;
  if (constraintName) {
    constraint = CONSTRAINTS[constraintName];
    if (!constraint) throw new Error(`Route "${template}": unknown constraint "${constraintName}"`);
  }
  return { kind: 'param', name, optional: Boolean(optional), constraint };
}

export function compileRoute(template: string): CompiledRoute {
  const segments = template
    .split('/')
    .filter(Boolean)
    .map((s) => parseSegment(s, template));
  segments.forEach((s, i) => {
    if (s.kind === 'catchAll' && i !== segments.length - 1) throw new Error(`Route "${template}": a catch-all must be the last segment`);
    if (s.kind === 'param' && s.optional && segments.slice(i + 1).some((n) => n.kind !== 'catchAll' && !(n.kind === 'param' && n.optional))) {
      throw new Error(`Route "${template}": an optional parameter must be at the end`);
    }
  });
  return {
    template,
    match(path) {
      const parts = path.split('/').filter(Boolean);
      const params: Record<string, string> = {};
      for (let i = 0; i < segments.length; i++) {
        const segment = segments[i];
        if (segment.kind === 'catchAll') {
          const rest = parts.slice(i).map(decode);
          if (rest.includes(null as never)) return null;
          if (rest.length) params[segment.name] = rest.join('/');
          return params;
        }
        const part = parts[i];
        if (part === undefined) {
          if (segment.kind === 'param' && segment.optional) continue;
          return null;
        }
        const value = decode(part);
        if (value === null) return null;
        if (segment.kind === 'literal') {
          if (value.toLowerCase() !== segment.value) return null;
        } else {
          if (segment.constraint && !segment.constraint.test(value)) return null;
          params[segment.name] = value;
        }
      }
      return parts.length <= segments.length ? params : null;
    },
  };
}

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** Azure refuses to start a function whose route begins with `admin` (reserved for the host's own API). */
export function assertRouteAllowed(template: string): void {
  const first = template.split('/').filter(Boolean)[0] ?? '';
  if (first.toLowerCase().startsWith('admin')) {
    throw new Error(`Route "${template}" conflicts with one or more built in routes: routes beginning with "admin" are reserved by the Functions host`);
  }
}

/** How literal a route is: ASP.NET prefers literal segments over parameters, and parameters over catch-alls. */
export function routePrecedence(template: string): number[] {
  return template
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith('{*') ? 3 : s.startsWith('{') ? (s.includes(':') ? 1 : 2) : 0));
}
