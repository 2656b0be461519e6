/**
 * First layer against links in diagrams: DOT source is read the way Graphviz's lexer reads it
 * (comments, `#` lines, quoted strings with `\"` escapes, line continuations and `+`
 * concatenation, HTML strings `<...>`), so an attribute name is checked as Graphviz will see it,
 * whatever its spelling: `URL=`, `"URL"=`, `"UR" + "L"=`, `<URL>=`, `labelURL=`. The second layer
 * (render/strip-links.ts) removes links from Graphviz's output in case anything gets past this.
 */

/** Attributes that read files or make Graphviz write a link or external reference. */
const FILE_ATTRIBUTES: ReadonlySet<string> = new Set(['image', 'imagepath', 'shapefile', 'fontpath', 'fontnames', 'stylesheet']);
/** URL, href, target and every prefixed form Graphviz knows (edgeURL, headhref, labeltarget, tailURL...), in any case. */
const LINK_ATTRIBUTE = /(url|href|target)$/i;
/** Inside HTML-like labels: HREF/TARGET on TABLE and TD, IMG SRC (reads a file). */
const HTML_LINK = /\b(href|target|src)\s*=|<\s*img\b/i;

/** An unquoted DOT ID or numeral, matched where the scan stands. */
const WORD = /[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*|-?(?:\.\d+|\d+(?:\.\d*)?)/y;

type Token = { kind: 'id'; value: string; html: boolean } | { kind: 'punct'; value: string };

/** Tokens of DOT source; quoted strings are decoded and concatenated as Graphviz does. */
export function dotTokens(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let lineStart = true;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    if (c === '\n') {
      lineStart = true;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const atLineStart = lineStart;
    lineStart = false;
    if (c === '#' && atLineStart) {
      while (i < n && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === '"') {
      let value = '';
      i++;
      while (i < n && source[i] !== '"') {
        if (source[i] === '\\' && source[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (source[i] === '\\' && source[i + 1] === '\n') {
          i += 2; // line continuation
        } else if (source[i] === '\\' && source[i + 1] === '\r' && source[i + 2] === '\n') {
          i += 3;
        } else {
          value += source[i++];
        }
      }
      i++;
      const previous = tokens[tokens.length - 1];
      const beforePlus = tokens[tokens.length - 2];
      // "a" + "b" is one string.
      if (previous?.kind === 'punct' && previous.value === '+' && beforePlus?.kind === 'id' && !beforePlus.html) {
        tokens.pop();
        beforePlus.value += value;
      } else {
        tokens.push({ kind: 'id', value, html: false });
      }
      continue;
    }
    if (c === '<') {
      let depth = 0;
      const start = i;
      while (i < n) {
        if (source[i] === '<') depth++;
        else if (source[i] === '>' && --depth === 0) break;
        i++;
      }
      tokens.push({ kind: 'id', value: source.slice(start + 1, i), html: true });
      i++;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(source);
    if (word) {
      tokens.push({ kind: 'id', value: word[0], html: false });
      i += word[0].length;
      continue;
    }
    const arrow = source.startsWith('->', i) || source.startsWith('--', i);
    tokens.push({ kind: 'punct', value: arrow ? source.slice(i, i + 2) : c });
    i += arrow ? 2 : 1;
  }
  return tokens;
}

/** The first link-bearing or file-reading construct in DOT source, described for the 400, or undefined. */
export function forbiddenDotConstruct(source: string): string | undefined {
  const tokens = dotTokens(source);
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t];
    if (token.kind !== 'id') continue;
    if (token.html && HTML_LINK.test(token.value)) return 'an HTML-like label with HREF, TARGET or IMG SRC';
    const next = tokens[t + 1];
    if (next?.kind !== 'punct' || next.value !== '=') continue;
    const name = token.value.trim();
    if (LINK_ATTRIBUTE.test(name) || FILE_ATTRIBUTES.has(name.toLowerCase())) return `the attribute "${name}"`;
  }
  return undefined;
}
