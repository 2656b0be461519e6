/** Replaces the generated block between `<!-- name:start -->` and `<!-- name:end -->` in a markdown document. */
export function replaceGeneratedBlock(markdown: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`markers ${start} and ${end} not found`);
  return `${markdown.slice(0, from + start.length)}\n${content}\n${markdown.slice(to)}`;
}

export const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
