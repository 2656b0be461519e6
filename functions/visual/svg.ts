import { xmlChars } from '../../shared/text';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for SVG/XML content and attribute values; the characters XML cannot hold are dropped (xmlChars). */
export function escapeXml(value: unknown): string {
  return xmlChars(String(value)).replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}
