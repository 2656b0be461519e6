import { cell } from '../shared/markdown';
import { allServices } from './registry';

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
