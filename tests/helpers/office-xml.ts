import { Resvg } from '@resvg/resvg-js';
import JSZip from 'jszip';

/**
 * The XML parts of an Office file (.pptx: a zip of XML parts and media), read with jszip (the zip
 * library pptxgenjs writes with), by name.
 */
export async function officeXmlParts(file: Buffer): Promise<Map<string, string>> {
  const zip = await JSZip.loadAsync(file);
  const parts = new Map<string, string>();
  for (const entry of Object.values(zip.files)) {
    if (!entry.dir && /\.(xml|rels)$/.test(entry.name)) parts.set(entry.name, await entry.async('string'));
  }
  return parts;
}

/**
 * Why a part is not a well-formed XML document, or undefined when it is. Read by roxmltree (the
 * parser inside resvg), which refuses what XML 1.0 refuses, characters such as U+0001 included;
 * fast-xml-parser's validator and sax both accept them. The part is read inside an empty SVG
 * element (its XML declaration removed), so any well-formed part parses whatever its root.
 */
export function xmlProblem(xml: string): string | undefined {
  const body = xml.replace(/^\uFEFF?<\?xml[^>]*\?>\s*/, '');
  try {
    new Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">${body}</svg>`);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Each part that is not well-formed XML, with the parser's reason: empty when every part is. */
export function malformedParts(parts: Map<string, string>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [name, xml] of parts) {
    const problem = xmlProblem(xml);
    if (problem) problems[name] = problem;
  }
  return problems;
}
