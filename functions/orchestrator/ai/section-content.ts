import { validator } from '../../../shared/http/body';
import { collapseSpaces, sentence, withoutFieldNames } from '../report/words';

/** What a report section says: paragraphs of whole sentences, then an optional list (actions, challenges, risks). */
export interface SectionContent {
  paragraphs: string[];
  bullets: string[];
}

/**
 * The JSON Schema a model's section must match (OpenAI structured output, strict mode: every
 * property required, no others). ajv checks the answer against the same schema, so a model or
 * server that ignores the response format is caught here, not in the PDF.
 */
export const SECTION_CONTENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['paragraphs', 'bullets'],
  properties: {
    paragraphs: {
      type: 'array',
      description: 'One to four paragraphs of whole sentences, each ending with a full stop.',
      minItems: 1,
      maxItems: 4,
      items: { type: 'string', minLength: 20, maxLength: 1500, pattern: '[.!?…]["\'”’)]*$' },
    },
    bullets: {
      type: 'array',
      description: 'Zero to eight short list items (actions, risks or goals); empty when the section needs no list.',
      maxItems: 8,
      items: { type: 'string', minLength: 3, maxLength: 300 },
    },
  },
} as const;

export type ContentCheck = { ok: true; content: SectionContent } | { ok: false; problem: string };

/** Parses a model's answer and checks it against the schema; the problem is said in words a retry prompt can quote. */
export function checkSectionContent(answer: string | null | undefined): ContentCheck {
  let value: unknown;
  try {
    value = JSON.parse(answer ?? '');
  } catch {
    return { ok: false, problem: 'the answer is not JSON' };
  }
  const validate = validator<SectionContent>(SECTION_CONTENT_SCHEMA);
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).slice(0, 5);
    return { ok: false, problem: problems.join('; ') };
  }
  return { ok: true, content: tidyContent(value) };
}

/** Whole sentences without field names, blank items dropped: what every provider's content goes through before the PDF. */
export function tidyContent(content: SectionContent): SectionContent {
  return {
    paragraphs: content.paragraphs.map((p) => sentence(withoutFieldNames(p))).filter(Boolean),
    bullets: content.bullets.map((b) => withoutFieldNames(collapseSpaces(b))).filter(Boolean),
  };
}

/** The section as plain text (the presentation's slides). */
export const contentText = (content: SectionContent) => [...content.paragraphs, ...content.bullets.map((b) => `• ${b}`)].join('\n');
