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
