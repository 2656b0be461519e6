import { deflateSync, inflateSync } from 'node:zlib';

/**
 * The text layer of combining marks drawn back over their letter (Devanagari's anusvara in "कं",
 * its vowel signs above): Typst writes such a cluster as one `/ActualText` span whose glyphs are
 * `[(letter) 221 (mark)] TJ`, the mark moved back onto the letter and advancing nothing. Text
 * extractors (poppler's pdftotext, and search and screen readers built on it) end the span where
 * its last glyph ends, so 221/1000 em before the next letter, and read that gap as a word space:
 * "कंपनी" copies as "कं पनी".
 *
 * The rewrite draws the same glyphs at the same places: the kern is kept, then the last glyph is
 * shown with a character spacing (Tc) equal to that kern, so its advance, and the span, end where
 * the letter ended; the pen is then moved back by the same amount. Only the last glyph of a span's
 * TJ array preceded by a backward kern is touched, only in streams that set no Tc of their own.
 * The changed content streams are appended as an incremental update (new objects, a new
 * cross-reference section pointing back at the old one), so no byte of Typst's file moves.
 */

type Token = { kind: 'string' | 'number' | 'word' | 'open' | 'close'; text: string; start: number; end: number };

const DELIMITER = /[\s()<>[\]{}/%]/;

/** The tokens of a content stream: literal and hex strings, numbers, names and operators, and array brackets. */
function* tokens(content: string): Generator<Token> {
  let i = 0;
  while (i < content.length) {
    const c = content[i];
    const start = i;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(') {
      let depth = 0;
      for (; i < content.length; i++) {
        if (content[i] === '\\') i++;
        else if (content[i] === '(') depth++;
        else if (content[i] === ')' && --depth === 0) break;
      }
      yield { kind: 'string', text: content.slice(start, ++i), start, end: i };
    } else if (c === '[' || c === ']') {
      yield { kind: c === '[' ? 'open' : 'close', text: c, start, end: ++i };
    } else if (c === '<' || c === '>') {
      i = content[i + 1] === c ? i + 2 : c === '<' ? content.indexOf('>', i) + 1 : i + 1;
      yield { kind: 'word', text: content.slice(start, i), start, end: i };
    } else {
      i++;
      while (i < content.length && !DELIMITER.test(content[i])) i++;
      const text = content.slice(start, i);
      yield { kind: /^[+-]?[\d.]+$/.test(text) ? 'number' : 'word', text, start, end: i };
    }
  }
}

/** The number of bytes a literal string stands for (a 2-byte string is one glyph of an Identity-H font). */
function literalLength(literal: string): number {
  return literal.slice(1, -1).replace(/\\[0-7]{1,3}|\\[^]/g, 'x').length;
}

/** Tc's value in text space: a kern of `kern` thousandths of an em at `size`. */
const spacing = (kern: number, size: number) => Number(((kern / 1000) * size).toFixed(6)).toString();

/** The content stream with each span's trailing mark shown as above; unchanged when nothing matches. */
export function rewriteContent(content: string): string {
  if (!content.includes('/ActualText')) return content;
  const edits: { start: number; end: number; text: string }[] = [];
  const spans: boolean[] = [];
  let actualText = false;
  let size = 0;
  let operands: Token[] = [];
  /** The array operand being read (open) or read (closed), with where it starts. */
  let array: { items: Token[]; start: number; closed: boolean } | null = null;
  for (const token of tokens(content)) {
    if (token.kind === 'open') array = { items: [], start: token.start, closed: false };
    else if (token.kind === 'close' && array) array.closed = true;
    else if (array && !array.closed) array.items.push(token);
    else if (token.kind !== 'word' || token.text.startsWith('/') || token.text.startsWith('<') || token.text.startsWith('>')) {
      if (token.text === '/ActualText') actualText = true;
      operands.push(token);
    } else {
      const op = token.text;
      if (op === 'Tc') return content; // a stream that sets its own character spacing is left as it is
      if (op === 'BDC') spans.push(actualText);
      else if (op === 'BMC') spans.push(false);
      else if (op === 'EMC') spans.pop();
      else if (op === 'Tf') size = Number(operands.at(-1)?.text ?? 0);
      else if (op === 'TJ' && array && spans.at(-1)) {
        const [kern, last] = array.items.slice(-2);
        if (kern?.kind === 'number' && Number(kern.text) > 0 && last?.kind === 'string' && literalLength(last.text) === 2) {
          const rest = array.items
            .slice(0, -1)
            .map((t) => t.text)
            .join(' ');
          const tc = spacing(Number(kern.text), size);
          edits.push({ start: array.start, end: token.end, text: `[${rest}] TJ\n${tc} Tc\n${last.text} Tj\n0 Tc\n[${kern.text}] TJ` });
        }
      }
      if (op === 'BDC' || op === 'BMC' || op === 'EMC') actualText = false;
      [operands, array] = [[], null];
    }
  }
  let out = content;
  for (const edit of edits.reverse()) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** Each stream object: its number, its dictionary's text and where its bytes start (the object that holds each `stream` keyword). */
function* streamObjects(text: string): Generator<{ id: number; dict: string; start: number }> {
  for (let at = text.indexOf('stream'); at >= 0; at = text.indexOf('stream', at + 6)) {
    if (text.slice(at - 3, at) === 'end') continue;
    const head = text.lastIndexOf(' 0 obj', at);
    const id = text
      .slice(Math.max(0, head - 12), head)
      .split(/\s/)
      .at(-1);
    const dict = text.slice(head, at);
    const eol = text[at + 6] === '\r' ? 2 : 1;
    if (head < 0 || !id || !/^\d+$/.test(id) || dict.includes('endobj') || !dict.trimEnd().endsWith('>>')) continue;
    yield { id: Number(id), dict, start: at + 6 + eol };
  }
}

/** The PDF with its marks' spans ending at their letters (an incremental update), or the PDF itself when none needed it. */
export function marksCopyWithTheirLetters(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  if (!text.includes('/ActualText') && !text.includes('/FlateDecode')) return pdf;
  const changed: { id: number; bytes: Buffer }[] = [];
  for (const { id, dict, start } of streamObjects(text)) {
    const length = /\/Length (\d+)\s/.exec(dict)?.[1];
    if (!length || !/\/Filter \/FlateDecode\s/.test(dict) || /\/DecodeParms|\/Subtype/.test(dict)) continue;
    let content: string;
    try {
      content = inflateSync(pdf.subarray(start, start + Number(length))).toString('latin1');
    } catch {
      continue;
    }
    const rewritten = rewriteContent(content);
    if (rewritten !== content) changed.push({ id, bytes: deflateSync(Buffer.from(rewritten, 'latin1')) });
  }
  if (!changed.length) return pdf;
  // Typst writes one cross-reference table and trailer; a file already updated is left as it is.
  const trailerAt = text.lastIndexOf('trailer');
  const startxrefAt = text.lastIndexOf('startxref');
  const original = text.slice(trailerAt + 'trailer'.length, startxrefAt).trim();
  const previous = text
    .slice(startxrefAt + 'startxref'.length)
    .trim()
    .split(/\s/)[0];
  if (trailerAt < 0 || startxrefAt < trailerAt || !original.endsWith('>>') || original.includes('/Prev') || !/^\d+$/.test(previous)) return pdf;
  const parts: Buffer[] = [pdf, Buffer.from('\n', 'latin1')];
  let offset = pdf.length + 1;
  const entries: string[] = [];
  for (const { id, bytes } of changed.sort((a, b) => a.id - b.id)) {
    const head = Buffer.from(`${id} 0 obj\n<<\n  /Length ${bytes.length}\n  /Filter /FlateDecode\n>>\nstream\n`, 'latin1');
    const tail = Buffer.from('\nendstream\nendobj\n', 'latin1');
    entries.push(`${id} 1\n${String(offset).padStart(10, '0')} 00000 n \n`);
    parts.push(head, bytes, tail);
    offset += head.length + bytes.length + tail.length;
  }
  const dict = `${original.slice(0, -2).trimEnd()}\n  /Prev ${previous}\n>>`;
  parts.push(Buffer.from(`xref\n${entries.join('')}trailer\n${dict}\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
