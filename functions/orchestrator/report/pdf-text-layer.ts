/**
 * The text layer of right-to-left ligatures. A glyph that stands for several letters (Arabic
 * lam-alef "لا", the one ligature every Arabic font must make) gets one ToUnicode entry holding
 * them. Text extractors (poppler's pdftotext, MuPDF, and search and screen readers built on them)
 * place a glyph's letters left to right inside the glyph and then reverse the right-to-left line,
 * so letters written in logical order come out swapped: "الاختبار" copies as "االختبار".
 * Written in visual order (right to left reversed), they come out in logical order.
 *
 * Typst (krilla) writes the ToUnicode CMaps as uncompressed streams of `<glyph> <letters>` entries;
 * the swap keeps every byte count, so the file's cross-reference offsets stay right. A CMap that is
 * compressed is left as it is (tests/orchestrator/report-scripts.test.ts would then fail on the
 * Arabic name).
 */

/** Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms: letters laid right to left. */
const rtl = (unit: string) => {
  const cp = parseInt(unit, 16);
  return (cp >= 0x0590 && cp <= 0x08ff) || (cp >= 0xfb1d && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfeff);
};

/** A bfchar entry: a 2-byte glyph code and the UTF-16 letters it stands for. */
const ENTRY = /<([0-9A-Fa-f]{4})> <((?:[0-9A-Fa-f]{4}){2,})>/g;

function visualOrder(letters: string): string {
  const units = letters.match(/.{4}/g)!;
  if (!units.every(rtl)) return letters;
  return units.reverse().join('');
}

/** The PDF with each right-to-left ligature's letters in visual order in its ToUnicode CMap (same length, same offsets). */
export function rtlLigaturesInVisualOrder(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  let out: string | null = null;
  let from = 0;
  for (;;) {
    const cmap = text.indexOf('/Type /CMap', from);
    if (cmap < 0) break;
    const dictEnd = text.indexOf('>>', cmap);
    const start = text.indexOf('stream\n', dictEnd);
    const end = text.indexOf('endstream', start);
    if (dictEnd < 0 || start < 0 || end < 0) break;
    from = end;
    const dict = text.slice(text.lastIndexOf('<<', cmap), dictEnd);
    if (/\/Filter/.test(dict)) continue;
    const body = text.slice(start, end);
    const swapped = body.replace(ENTRY, (_entry, glyph: string, letters: string) => `<${glyph}> <${visualOrder(letters)}>`);
    if (swapped !== body) {
      out ??= text;
      out = out.slice(0, start) + swapped + out.slice(end);
    }
  }
  return out === null ? pdf : Buffer.from(out, 'latin1');
}
