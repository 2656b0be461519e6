const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for SVG/XML content and attribute values; control characters XML forbids are dropped. */
export function escapeXml(value: unknown): string {
  return (
    String(value)
      // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these characters in a document
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/[&<>"']/g, (c) => XML_ESCAPES[c])
  );
}
