/**
 * Chart SVG made safe to put inline in the shared page. The charts come from the visual service
 * (its own SVG writer), but the page treats them as untrusted markup: the document is re-written
 * from an allow-list, element by element and attribute by attribute, and nothing else passes.
 *
 * - Elements: the shapes, groups, clips and text a chart is drawn with. Anything else (script,
 *   style, foreignObject, image, use, a, animate...) is dropped with all it contains.
 * - Attributes: geometry and presentation attributes only; no event handler, href, style or
 *   namespace declaration. A paint or clip may only point into the same chart (`url(#id)`).
 * - Ids are prefixed with the chart's own prefix (and references with them), so two charts on one
 *   page cannot clash or reach into each other.
 * - Text and attribute values are decoded (the five XML entities and character references) and
 *   escaped again; comments, processing instructions and the XML declaration are dropped; a
 *   DOCTYPE or CDATA section refuses the whole document.
 *
 * The root gets role="img" and a <title> with the chart's alternative text (aria-labelledby).
 */
const ELEMENTS: ReadonlySet<string> = new Set([
  'svg',
  'g',
  'defs',
  'clipPath',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
]);
/** Elements whose text content is kept (everything else holds only whitespace between elements). */
const TEXT_ELEMENTS: ReadonlySet<string> = new Set(['text', 'tspan']);
const ATTRIBUTES: ReadonlySet<string> = new Set([
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'dx',
  'dy',
  'width',
  'height',
  'viewBox',
  'preserveAspectRatio',
  'd',
  'points',
  'transform',
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'opacity',
  'clip-path',
  'clip-rule',
  'clipPathUnits',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'textLength',
  'lengthAdjust',
  'id',
]);
/** Charts over this size are not put inline (the visual service caps its SVG far below it). */
export const MAX_INLINE_SVG_BYTES = 4 * 1024 * 1024;
const NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const ID = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const LOCAL_URL = /^url\(#([A-Za-z][A-Za-z0-9_.-]{0,63})\)$/;

export class UnsafeSvgError extends Error {}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML text to characters: the five named entities and numeric references; any other `&` stays a literal ampersand. */
function decode(text: string): string {
  return text.replace(/&(#x[0-9A-Fa-f]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);/g, (_whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref];
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
  });
}

const isSpace = (c: string) => c === ' ' || c === '\n' || c === '\t' || c === '\r';

interface Tag {
  name: string;
  attributes: [string, string][];
  selfClosing: boolean;
  end: number;
}

/** Reads the start tag at `at` (the `<`), by hand: names, `=`, quoted values; anything else is refused. */
function readTag(svg: string, at: number): Tag {
  let i = at + 1;
  const nameStart = i;
  while (i < svg.length && !isSpace(svg[i]) && svg[i] !== '>' && svg[i] !== '/') i++;
  const name = svg.slice(nameStart, i);
  if (!NAME.test(name)) throw new UnsafeSvgError('an element name the chart cannot have');
  const attributes: [string, string][] = [];
  for (;;) {
    while (i < svg.length && isSpace(svg[i])) i++;
    if (i >= svg.length) throw new UnsafeSvgError('an unfinished tag');
    if (svg[i] === '>') return { name, attributes, selfClosing: false, end: i + 1 };
    if (svg[i] === '/' && svg[i + 1] === '>') return { name, attributes, selfClosing: true, end: i + 2 };
    const attrStart = i;
    while (i < svg.length && !isSpace(svg[i]) && svg[i] !== '=' && svg[i] !== '>' && svg[i] !== '/') i++;
    const attr = svg.slice(attrStart, i);
    while (i < svg.length && isSpace(svg[i])) i++;
    const quote = svg[i + 1];
    if (!NAME.test(attr) || svg[i] !== '=' || (quote !== '"' && quote !== "'")) throw new UnsafeSvgError('an attribute that is not name="value"');
    const close = svg.indexOf(quote, i + 2);
    if (close < 0) throw new UnsafeSvgError('an unfinished attribute value');
    attributes.push([attr, decode(svg.slice(i + 2, close))]);
    i = close + 1;
  }
}

/** The attribute as it may be written, or null when it goes. */
function keptAttribute(name: string, value: string, prefix: string): string | null {
  if (!ATTRIBUTES.has(name)) return null;
  if (name === 'id') return ID.test(value) ? `${prefix}-${value}` : null;
  if (value.includes('url(') || value.includes('(#')) {
    const local = LOCAL_URL.exec(value.trim());
    return local ? `url(#${prefix}-${local[1]})` : null;
  }
  if (/[<>]|javascript:|expression\(/i.test(value)) return null;
  return value;
}

/**
 * The chart's SVG rewritten from the allow-list, as an inline `<svg>` for an HTML page: `prefix`
 * makes its ids its own (letters, digits and hyphens), `alt` is its accessible name.
 */
export function inlineSvg(svg: string, prefix: string, alt: string): string {
  if (!/^[A-Za-z][A-Za-z0-9-]{0,40}$/.test(prefix)) throw new Error(`bad svg id prefix ${prefix}`);
  if (Buffer.byteLength(svg, 'utf8') > MAX_INLINE_SVG_BYTES) throw new UnsafeSvgError('a chart too large to put inline');
  const out: string[] = [];
  const open: string[] = [];
  let skipping = 0;
  let rooted = false;
  let i = 0;
  while (i < svg.length) {
    const lt = svg.indexOf('<', i);
    const text = svg.slice(i, lt < 0 ? svg.length : lt);
    if (text && !skipping && TEXT_ELEMENTS.has(open[open.length - 1])) out.push(escape(decode(text)));
    else if (text.trim() && !skipping && !rooted) throw new UnsafeSvgError('text outside the svg element');
    if (lt < 0) break;
    if (svg.startsWith('<!--', lt)) {
      const end = svg.indexOf('-->', lt + 4);
      if (end < 0) throw new UnsafeSvgError('an unfinished comment');
      i = end + 3;
    } else if (svg.startsWith('<?', lt)) {
      const end = svg.indexOf('?>', lt + 2);
      if (end < 0) throw new UnsafeSvgError('an unfinished processing instruction');
      i = end + 2;
    } else if (svg.startsWith('<!', lt)) {
      throw new UnsafeSvgError('a DOCTYPE or CDATA section');
    } else if (svg.startsWith('</', lt)) {
      const end = svg.indexOf('>', lt + 2);
      if (end < 0) throw new UnsafeSvgError('an unfinished end tag');
      const name = svg.slice(lt + 2, end).trim();
      if (skipping) skipping--;
      else {
        if (open[open.length - 1] !== name) throw new UnsafeSvgError('end tags that do not match');
        open.pop();
        out.push(`</${name}>`);
      }
      i = end + 1;
    } else {
      const tag = readTag(svg, lt);
      i = tag.end;
      if (skipping) {
        if (!tag.selfClosing) skipping++;
        continue;
      }
      const root = open.length === 0;
      if (root && (rooted || tag.name !== 'svg')) throw new UnsafeSvgError('a document whose root is not one svg element');
      if (!ELEMENTS.has(tag.name) || (!root && tag.name === 'svg')) {
        if (!tag.selfClosing) skipping = 1;
        continue;
      }
      const attributes = tag.attributes.flatMap(([name, value]) => {
        const kept = keptAttribute(name, value, prefix);
        return kept === null ? [] : [`${name}="${escape(kept)}"`];
      });
      if (root) {
        rooted = true;
        const size = new Map(tag.attributes);
        if (!size.has('viewBox') && /^\d+(\.\d+)?$/.test(size.get('width') ?? '') && /^\d+(\.\d+)?$/.test(size.get('height') ?? ''))
          attributes.push(`viewBox="0 0 ${size.get('width')} ${size.get('height')}"`);
        attributes.push('role="img"', `aria-labelledby="${prefix}-title"`, 'focusable="false"');
        out.push(`<svg ${attributes.join(' ')}><title id="${prefix}-title">${escape(alt)}</title>`);
        if (tag.selfClosing) out.push('</svg>');
        else open.push('svg');
        continue;
      }
      out.push(`<${tag.name}${attributes.length ? ` ${attributes.join(' ')}` : ''}${tag.selfClosing ? '/>' : '>'}`);
      if (!tag.selfClosing) open.push(tag.name);
    }
  }
  if (!rooted || open.length || skipping) throw new UnsafeSvgError('an svg document that does not end');
  return out.join('');
}
