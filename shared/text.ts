/** Text helpers for values a caller or an operator writes: each runs in time linear in its input (no backtracking regular expression). */

/** `value` without the slashes it ends with. */
export function trimTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
  return value.slice(0, end);
}

/** `url` without its query and fragment. */
export function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut < 0 ? url : url.slice(0, cut);
}

/**
 * Characters an XML 1.0 document cannot hold: the C0 controls other than tab, line feed and carriage
 * return; lone surrogates (a pair is one character and stays); U+FFFE and U+FFFF.
 */
// eslint-disable-next-line no-control-regex -- these are the characters XML 1.0 forbids
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;

/**
 * `text` without the characters XML cannot hold. Every text the services write into XML or draw
 * passes through it: SVG (charts, infographics), decks (pptxgenjs writes text into XML as given),
 * and chart texts before the canvas draws them (a NUL is more than the canvas library can take).
 */
export function xmlChars(text: string): string {
  return text.replace(NOT_XML, '');
}
