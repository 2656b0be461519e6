import type { Figure } from '../report/analysis';
import { messages, type Messages } from '../i18n/catalogue';
import type { PdfModel } from '../report/pdf';
import { html, htmlDocument } from './html';
import { inlineSvg } from './svg';

type Section = PdfModel['sections'][number];
type Chart = Section['charts'][number];

const figures = (items: Figure[], label: string) =>
  items.length
    ? `<ul class="figures" aria-label="${html(label)}">${items.map((f) => `<li><span class="value">${html(f.value)}</span> <span class="label">${html(f.label)}</span></li>`).join('')}</ul>`
    : '';

/** Numbers figures and tables as the PDF does (Figure N., Table N., each counted in document order). */
class Numbering {
  figure = 0;
  table = 0;
}

function chart(c: Chart, svgs: Map<string, string>, n: Numbering, label: string): string {
  const number = ++n.figure;
  const svg = svgs.get(c.id);
  let drawing: string;
  try {
    drawing = svg ? inlineSvg(svg, `chart-${number}`, c.alt) : '';
  } catch {
    // A chart that does not pass the allow-list is left out; its caption, finding and alternative text stay.
    drawing = '';
  }
  const body = drawing ? `<div class="chart">${drawing}</div>` : `<p class="note">${html(c.alt)}</p>`;
  return `<figure>${body}<figcaption><strong>${html(label)} ${number}.</strong> ${html(c.caption)}. ${html(c.finding)}</figcaption></figure>`;
}

function table(t: NonNullable<Section['table']>, n: Numbering, label: string): string {
  const number = ++n.table;
  const id = `table-${number}`;
  const head = `<thead><tr>${t.columns.map((c) => `<th scope="col">${html(c)}</th>`).join('')}</tr></thead>`;
  const rows = t.rows.map((r) => `<tr>${r.map((cell, i) => (i === 0 ? `<th scope="row">${html(cell)}</th>` : `<td>${html(cell)}</td>`)).join('')}</tr>`);
  // The table scrolls inside its own box on a narrow screen; the box is focusable so a keyboard can scroll it.
  return (
    `<figure><figcaption id="${id}"><strong>${html(label)} ${number}.</strong> ${html(t.caption)}</figcaption>` +
    `<div class="scroll" role="region" aria-labelledby="${id}" tabindex="0"><table>${head}<tbody>${rows.join('')}</tbody></table></div></figure>`
  );
}

/** One section in the PDF's order: figures, the lead chart, the table, the text, the list, then the other charts. */
function section(s: Section, index: number, svgs: Map<string, string>, n: Numbering, model: PdfModel, { t }: Messages): string {
  const id = `section-${index + 1}`;
  const parts = [`<h2 id="${id}">${html(s.title)}</h2>`, figures(s.indicators, t('share.figuresOf', { section: s.title }))];
  if (s.leadChart) parts.push(...s.charts.map((c) => chart(c, svgs, n, model.labels.figure)));
  if (s.table) parts.push(table(s.table, n, model.labels.table));
  parts.push(...s.paragraphs.map((p) => `<p>${html(p)}</p>`));
  if (s.bullets.length) {
    const tag = s.numbered ? 'ol' : 'ul';
    parts.push(`<${tag}>${s.bullets.map((b) => `<li>${html(b)}</li>`).join('')}</${tag}>`);
  }
  if (!s.leadChart) parts.push(...s.charts.map((c) => chart(c, svgs, n, model.labels.figure)));
  return `<section aria-labelledby="${id}">${parts.join('')}</section>`;
}

/**
 * The report as a web page, from the PDF's model (pdf.ts reportModel): the cover (company, sector,
 * date and plan, headline figures, contents, notes), every section with its figures, tables and
 * charts (inline SVG, allow-listed, with their captions and alternative text), and the PDF's
 * download. Every text is escaped; the page has no script.
 */
export function reportPage(model: PdfModel, svgs: Map<string, string>, links: { pdf: string; expiresAt: string }): string {
  const n = new Numbering();
  const words = messages(model.locale);
  const { t } = words;
  const lang = model.region ? `${model.lang}-${model.region}` : model.lang;
  const toc = model.sections.map((s, i) => `<li><a href="#section-${i + 1}">${html(s.title)}</a></li>`).join('');
  const notes = model.notes.length ? `<div class="notes">${model.notes.map((x) => `<p class="note">${html(x)}</p>`).join('')}</div>` : '';
  const body =
    '<div class="page"><header>' +
    `<p class="kicker">${html(model.subtitle)}</p>` +
    `<h1>${html(model.company)}</h1>` +
    `<p class="sector">${html(model.sector)}</p>` +
    `<p class="meta">${html(model.date)} · ${html(model.plan)}</p>` +
    `<p class="actions"><a class="button" href="${html(links.pdf)}">${html(t('share.download'))}</a></p>` +
    figures(model.headline, t('share.headline')) +
    `<nav class="toc" aria-labelledby="toc"><h2 id="toc">${html(model.labels.contents)}</h2><ol>${toc}</ol></nav>` +
    notes +
    '</header><main>' +
    model.sections.map((s, i) => section(s, i, svgs, n, model, words)).join('') +
    '</main>' +
    `<footer><p class="reference">${html(t('share.footer', { id: model.trackingId, date: links.expiresAt.slice(0, 10) }))}</p></footer>` +
    '</div>';
  return htmlDocument({ lang, title: model.title, body });
}
