/**
 * Second layer against links in diagrams (the first refuses link attributes in DOT source): what
 * Graphviz writes is cleaned before it is stored or served from our origin. `<a>` elements are
 * unwrapped (their drawing stays, the link goes; tooltips go with them), every `href` and
 * `xlink:href` attribute is removed, and so is any attribute whose value is a `javascript:` or
 * `vbscript:` URL. Graphviz escapes `<`, `>`, `&` and quotes in every text and attribute value it
 * writes, so in its output a `<` always starts markup and a start tag always ends at the next `>`.
 * No pattern looks past the next `<`, and an attribute match starts at the one whitespace before its
 * name, so each runs in time linear in the document whatever the labels hold.
 */
const A_TAG = /<a(?:\s[^<>]*)?>|<\/a\s*>/g;
const START_TAG = /<([A-Za-z][\w:.-]*)(\s[^<>]*?)?(\/?)>/g;
const ATTRIBUTE = /\s([^\s=/>]+)\s*=\s*("[^"]*"|'[^']*')/g;
const HREF = /^(?:[\w.-]+:)?href$/i;
const SCRIPT_URL = /(?:java|vb)script:/i;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeEntities = (value: string) =>
  value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });

/** True when a browser would read the attribute value as a script URL (entities decoded, whitespace and controls ignored). */
// eslint-disable-next-line no-control-regex -- browsers ignore control characters inside a URL scheme, so must we
const isScriptUrl = (quoted: string) => SCRIPT_URL.test(decodeEntities(quoted.slice(1, -1)).replace(/[\s\u0000-\u001f]+/g, ''));

function cleanAttributes(attributes: string): string {
  return attributes.replace(ATTRIBUTE, (whole, name: string, value: string) => (HREF.test(name) || isScriptUrl(value) ? '' : whole));
}

export function stripLinks(svg: string): string {
  return svg
    .replace(A_TAG, '')
    .replace(
      START_TAG,
      (_whole, name: string, attributes: string | undefined, selfClosing: string) => `<${name}${cleanAttributes(attributes ?? '')}${selfClosing}>`,
    );
}
