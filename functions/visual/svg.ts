const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for SVG/XML content and attribute values; control characters XML forbids are dropped. */
export function escapeXml(value: unknown): string {
  return String(value)
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

/** A color from a request or theme, allowed into an attribute only if it is a plain CSS color. */
export function safeColor(value: string, fallback: string): string {
  return /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\([\d.,\s%]+\))$/i.test(value) ? value : fallback;
}
