/**
 * The report's layout in Typst markup. Everything it prints comes from /report.json (written by
 * pdf.ts) and is set as text, never evaluated as markup, so a company name or a model's sentence
 * cannot change the document. Charts are /charts/<id>.svg, placed as vector drawings.
 *
 * Pages: a cover (company, date, plan, headline figures, contents, notes), then the sections one
 * after another with a running header and "Page N of M" footer; figures float to the top or bottom
 * of a page, so no page is left half empty for want of room for a chart.
 */
/** The page margins in centimetres (the running header and footer sit inside them). */
export const PAGE_MARGINS_CM = { left: 2.2, right: 2.2, top: 2.5, bottom: 2.3 };
const m = PAGE_MARGINS_CM;

export const REPORT_TEMPLATE = String.raw`
#let data = json("/report.json")
#let brand = rgb("#1f4788")
#let ink = rgb("#1d232b")
#let muted = rgb("#5b6573")
#let pale = rgb("#eef2f8")
#let rule-color = rgb("#c9d3e3")

#set document(title: data.title, author: data.author, keywords: data.keywords, date: auto)
#set text(font: data.fonts, size: 9.5pt, fill: ink, lang: data.lang, region: data.region, hyphenate: false)
#set par(leading: 0.72em, spacing: 1.05em, justify: false)
#set page(
  paper: "a4",
  margin: (left: ${m.left}cm, right: ${m.right}cm, top: ${m.top}cm, bottom: ${m.bottom}cm),
  header: context if here().page() > 1 {
    set text(size: 7.5pt, fill: muted)
    grid(columns: (1fr, auto), align: (left, right), data.company, data.subtitle)
    v(-0.45em)
    line(length: 100%, stroke: 0.5pt + rule-color)
  },
  footer: context if here().page() > 1 {
    set text(size: 7.5pt, fill: muted)
    grid(columns: (1fr, auto), align: (left, right), data.date, [Page #counter(page).display() of #counter(page).final().first()])
  },
)

#show heading.where(level: 1): it => {
  v(1.1em, weak: true)
  block(below: 0.9em, sticky: true, {
    set text(size: 15pt, weight: "bold", fill: brand)
    it.body
    v(-0.55em)
    line(length: 100%, stroke: 0.6pt + rule-color)
  })
}
#show heading.where(level: 2): it => block(above: 1.2em, below: 0.7em, sticky: true, text(size: 10.5pt, weight: "bold", fill: ink, it.body))

#set list(marker: text(fill: brand)[•], indent: 0.4em, body-indent: 0.6em, spacing: 0.75em)
#set enum(numbering: n => text(fill: brand, weight: "bold")[#n.], indent: 0.2em, body-indent: 0.6em, spacing: 0.85em)
#set figure(gap: 0.7em)
#set figure.caption(separator: [. ])
#show figure.caption: it => {
  set text(size: 8pt, fill: muted)
  set align(left)
  [#text(weight: "bold", fill: ink)[#it.supplement #context it.counter.display(it.numbering).] #it.body]
}
#show figure.where(kind: table): set figure.caption(position: top)
#set table(stroke: none, inset: (x: 6pt, y: 5pt))

// Figures as a grid of tinted cells: every cell of a row as tall as the tallest.
#let figures-grid(items, columns, value-size) = grid(
  columns: (1fr,) * columns,
  column-gutter: 6pt,
  row-gutter: 6pt,
  fill: (x, y) => if y * columns + x < items.len() { pale },
  inset: (x: 9pt, y: 8pt),
  ..items.map(f => stack(spacing: 5pt, text(size: value-size, weight: "bold", fill: brand, f.value), text(size: 7.5pt, fill: muted, f.label))),
)

#let chart(c, float) = figure(
  image("/charts/" + c.id + ".svg", width: 100%, alt: c.alt),
  caption: [#c.caption. #c.finding],
  placement: if float { auto } else { none },
  kind: image,
)

#let year-table(t) = figure(
  {
    set text(size: 8.5pt)
    table(
      columns: (auto,) + (1fr,) * (t.columns.len() - 1),
      align: (left,) + (right,) * (t.columns.len() - 1),
      fill: (_, y) => if y == 0 { brand } else if calc.even(y) { pale } else { none },
      table.header(..t.columns.map(c => text(fill: white, weight: "bold", c))),
      ..t.rows.flatten(),
    )
  },
  caption: [#t.caption],
  kind: table,
)

// Cover
#block(width: 100%, fill: brand, inset: (x: 14pt, y: 12pt), radius: 2pt, text(size: 8.5pt, weight: "bold", fill: white, upper(data.subtitle)))
#v(1.6cm)
#block(text(size: 26pt, weight: "bold", fill: brand, data.company))
#v(0.2cm)
#text(size: 11pt, fill: ink, data.sector)
#v(0.35cm)
#text(size: 9pt, fill: muted, data.date + " · " + data.plan)
#v(1.1cm)
#if data.headline.len() > 0 {
  figures-grid(data.headline, calc.min(data.headline.len(), 4), 16pt)
}
#v(1cm)
#outline(title: text(size: 11pt, weight: "bold", fill: ink)[In this report], depth: 1, indent: 0pt)
#v(1fr)
#if data.notes.len() > 0 {
  block(width: 100%, stroke: (left: 2pt + brand), inset: (left: 10pt, y: 4pt), {
    set text(size: 8pt, fill: muted)
    for note in data.notes { par(note) }
  })
}
#text(size: 7pt, fill: muted, "Reference " + data.trackingId)
#pagebreak()

// Sections, one after another
#for section in data.sections {
  heading(level: 1, section.title)
  if section.indicators.len() > 0 {
    figures-grid(section.indicators, calc.min(section.indicators.len(), 3), 12pt)
    v(0.6em)
  }
  // The lead chart (the executive summary's) stands under its figures; the others float to the top
  // or bottom of a page near their text, so a chart never leaves a page half empty.
  if section.leadChart { for c in section.charts { chart(c, false) } }
  // The year-by-year table comes before the text that discusses it.
  if section.table != none { year-table(section.table) }
  for p in section.paragraphs { par(p) }
  if section.bullets.len() > 0 {
    if section.numbered { enum(..section.bullets) } else { list(..section.bullets) }
  }
  if not section.leadChart { for c in section.charts { chart(c, true) } }
}
`;
