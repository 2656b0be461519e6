import { validator } from '../../../shared/http/body';
import { onceEach } from '../../../shared/once';
import type { Language } from '../i18n/catalogue';
import { collapseSpaces, sentence, withoutFieldNames } from '../report/words';

/** What a report section says: paragraphs of whole sentences, then an optional list (actions, challenges, risks). */
export interface SectionContent {
  paragraphs: string[];
  bullets: string[];
}

/** A paragraph's last characters: a full stop, question or exclamation mark (Latin or ideographic), then closing quotes or brackets (words.ts SENTENCE_END). */
const SENTENCE_END = '[.!?…。！？]["\'”’)」』）]*$';

/**
 * Letters a paragraph in the language must contain, where a pattern can tell the language from
 * others: Japanese has kana (Chinese has none), Chinese Han characters. The other languages are
 * told by the `language` answer only.
 */
const SCRIPT_OF: Partial<Record<Language, string>> = { ja: '[\\u3040-\\u30ff]', zh: '[\\u4e00-\\u9fff]' };

/**
 * The JSON Schema a model's section must match (OpenAI structured output, strict mode: every
 * property required, no others), for a report in `language`: the model names the language it wrote
 * in (it must be the report's), and a Japanese or Chinese paragraph must be in that script. ajv
 * checks the answer against the same schema, so a model or server that ignores the response format,
 * or writes in another language, is caught here, not in the PDF.
 */
export const sectionContentSchema = onceEach((language: Language) => {
  const script = SCRIPT_OF[language];
  return {
    type: 'object',
    additionalProperties: false,
    required: ['language', 'paragraphs', 'bullets'],
    properties: {
      language: {
        type: 'string',
        enum: [language],
        description: `The language the section is written in, as an ISO 639-1 code: always "${language}" (${new Intl.DisplayNames('en', { type: 'language' }).of(language)}).`,
      },
      paragraphs: {
        type: 'array',
        description: 'One to four paragraphs of whole sentences, each ending with a full stop.',
        minItems: 1,
        maxItems: 4,
        // A sentence of twenty letters in English is a dozen characters in Japanese or Chinese.
        items: {
          type: 'string',
          minLength: script ? 10 : 20,
          maxLength: 1500,
          pattern: script ? `^(?=[\\s\\S]*${script})[\\s\\S]*${SENTENCE_END}` : SENTENCE_END,
        },
      },
      bullets: {
        type: 'array',
        description: 'Zero to eight short list items (actions, risks or goals); empty when the section needs no list.',
        maxItems: 8,
        items: { type: 'string', minLength: 3, maxLength: 300 },
      },
    },
  } as const;
});

export type ContentCheck = { ok: true; content: SectionContent } | { ok: false; problem: string };

/** Parses a model's answer and checks it against the schema of the report's language; the problem is said in words a retry prompt can quote. */
export function checkSectionContent(answer: string | null | undefined, language: Language = 'en'): ContentCheck {
  let value: unknown;
  try {
    value = JSON.parse(answer ?? '');
  } catch {
    return { ok: false, problem: 'the answer is not JSON' };
  }
  const validate = validator<SectionContent & { language: Language }>(sectionContentSchema(language));
  if (!validate(value)) {
    const problems = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(root)'} ${e.message}${e.keyword === 'enum' ? ` (${JSON.stringify(e.params)})` : ''}`)
      .slice(0, 5);
    return { ok: false, problem: problems.join('; ') };
  }
  return { ok: true, content: tidyContent({ paragraphs: value.paragraphs, bullets: value.bullets }) };
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
