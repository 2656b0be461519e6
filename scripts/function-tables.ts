/**
 * What `npm run docs:generate` writes from the registered functions: docs/architecture.md's
 * function table, docs/limits.md's body limits, and functions/function-index.json. Generators are
 * tooling: they live here, not in functions/, so the deployed code holds only what serves.
 */
import type { ServiceName, SettingTable } from '../shared/config';
import { SETTINGS } from '../functions/settings';
import { DEFAULT_BODY_LIMIT } from '../shared/http/body';
import { bodySpec, type RoutedFunction } from '../shared/http/route';
import { cell } from './markdown';
import { allServices, indexEntry, type IndexedFunction } from '../functions/registry';

/** functions/function-index.json: per service, what the entry point registers without loading it. */
export function functionIndex(): Record<ServiceName, IndexedFunction[]> {
  return Object.fromEntries(allServices().map((s) => [s.name, s.functions.map(indexEntry)])) as Record<ServiceName, IndexedFunction[]>;
}

/** docs/architecture.md's table of every function: HTTP routes, timers and queue triggers, by service. */
export function functionTable(): string {
  const rows = allServices().flatMap((service) =>
    service.functions.map((fn) => {
      const trigger =
        fn.kind === 'http' ? `${fn.methods.join(', ')} \`/${fn.route}\`` : fn.kind === 'timer' ? `timer \`${fn.schedule}\`` : `queue \`${fn.queueName}\``;
      return `| ${service.name} | ${cell(trigger)} | \`${fn.name}\` |`;
    }),
  );
  return ['| Service | Trigger | Function |', '|---|---|---|', ...rows].join('\n');
}

const bytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

/** docs/limits.md's table of the body limit of every route that reads a body (413 PAYLOAD_TOO_LARGE above it). */
export function bodyLimitTable(): string {
  const rows = allServices().flatMap((service) =>
    service.functions
      .filter((fn): fn is RoutedFunction => fn.kind === 'http' && 'doc' in fn && bodySpec((fn as RoutedFunction).doc.io.body) !== undefined)
      .map((fn) => {
        const limit = bodySpec(fn.doc.io.body)!.limit ?? DEFAULT_BODY_LIMIT;
        const text = typeof limit === 'number' ? bytes(limit) : `${bytes(Number((SETTINGS as SettingTable)[limit.setting].default))} (\`${limit.setting}\`)`;
        return `| ${service.name} | ${fn.doc.methods.filter((m) => m !== 'GET' && m !== 'HEAD').join(', ')} \`/${fn.doc.path}\` | ${text} |`;
      }),
  );
  return ['| Service | Route | Largest body |', '|---|---|---|', ...rows, `| all | every other route (it reads no body) | ${bytes(DEFAULT_BODY_LIMIT)} |`].join(
    '\n',
  );
}
