import { SETTINGS } from '../functions/settings';
import { cell } from './markdown';

/** The README's configuration table, generated from the one settings list so it cannot drift. */
export function settingsTable(): string {
  const rows = Object.entries(SETTINGS).map(([name, s]) => {
    const services = s.services === 'all' ? 'all' : s.services.join(', ');
    const value = s.kind === 'required' ? '**required**' : s.kind === 'default' ? `\`${cell(s.default ?? '')}\`` : '';
    return `| \`${name}\` | ${services} | ${value} | ${s.deploy} | ${cell(s.description)} |`;
  });
  return ['| Setting | Read by | Default | In Azure | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
