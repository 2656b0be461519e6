import { SETTINGS, type Setting } from './settings';

const START = '<!-- settings:start -->';
const END = '<!-- settings:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The README's configuration table, generated from the one settings list so it cannot drift. */
export function settingsTable(): string {
  const rows = (Object.entries(SETTINGS) as [string, Setting<unknown>][]).map(([name, s]) => {
    const services = s.services === 'all' ? 'all' : s.services.join(', ');
    const value = s.kind === 'required' ? '**required**' : s.kind === 'default' ? `\`${cell(s.default ?? '')}\`` : '';
    return `| \`${name}\` | ${services} | ${value} | ${s.deploy} | ${cell(s.description)} |`;
  });
  return ['| Setting | Read by | Default | In Azure | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Replaces the generated block of a markdown document. */
export function withSettingsTable(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`markers ${START} and ${END} not found`);
  return `${markdown.slice(0, start + START.length)}\n${settingsTable()}\n${markdown.slice(end)}`;
}
