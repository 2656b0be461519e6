/**
 * A header value from text that may hold any character. Node refuses a header value outside
 * Latin-1 (and any control character), and a refused header drops the connection instead of
 * answering: so every character outside printable ASCII, and `%` itself, is percent-encoded as
 * UTF-8 (a lone surrogate as U+FFFD). `decodeURIComponent` gives the text back.
 */
export const headerText = (text: string): string =>
  text.replace(/[^\x20-\x24\x26-\x7e]/gu, (c) => (c.length === 1 && c >= '\ud800' && c <= '\udfff' ? '%EF%BF%BD' : encodeURIComponent(c)));

/** Served images run nothing and load nothing, even an SVG opened directly from our origin. */
export const IMAGE_SAFETY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
} as const;
