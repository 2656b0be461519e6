import type { IntlMessageFormat } from 'intl-messageformat';
import { onceEach } from '../../../shared/once';
import { vendored } from '../../../shared/vendor';
import type { Catalogue, MessageKey } from './messages/en';

/**
 * The report's languages and their message catalogues (ICU MessageFormat, formatted by
 * intl-messageformat). A report's `locale` picks both: its language chooses the catalogue (and the
 * language the AI is asked to write in), the whole locale the number, plural and date rules
 * ("de-AT": German words, Austrian numbers). A locale whose language has no catalogue gets English.
 *
 * Adding a language: a file messages/<code>.ts with every key of messages/en.ts (the compiler
 * insists; tests/orchestrator/report-i18n.test.ts checks the placeholders), and its entry below.
 *
 * A catalogue is loaded with the first report in its language, not with the service (the offline
 * writer, loaded at start-up, imports this file).
 */
const LOADERS = {
  en: () => (require('./messages/en') as typeof import('./messages/en')).en,
  de: () => (require('./messages/de') as typeof import('./messages/de')).de,
  fr: () => (require('./messages/fr') as typeof import('./messages/fr')).fr,
  es: () => (require('./messages/es') as typeof import('./messages/es')).es,
  ja: () => (require('./messages/ja') as typeof import('./messages/ja')).ja,
  zh: () => (require('./messages/zh') as typeof import('./messages/zh')).zh,
} as const satisfies Record<string, () => Catalogue>;

export type Language = keyof typeof LOADERS;
/** The languages a report can be written in, English first. */
export const LANGUAGES = Object.keys(LOADERS) as Language[];

/** A language's catalogue. */
export const catalogueOf = onceEach((language: Language): Catalogue => LOADERS[language]());
export type { MessageKey } from './messages/en';

/** The values a message takes: strings and numbers (plural and number arguments). */
export type MessageValues = Record<string, string | number>;

const isLanguage = (code: string): code is Language => Object.hasOwn(LOADERS, code);

/**
 * The report language of a locale: its language when a catalogue has it ("de-AT" → de, "ja-JP" → ja),
 * else English. Chinese is Simplified only: a locale written in Traditional characters (zh-TW,
 * zh-HK, zh-Hant) falls back to English rather than to a script its reader did not ask for.
 */
export function reportLanguage(locale: string): Language {
  let language: string;
  let script: string | undefined;
  try {
    const tag = new Intl.Locale(locale).maximize();
    language = tag.language;
    script = tag.script;
  } catch {
    return 'en';
  }
  if (language === 'zh' && script !== 'Hans') return 'en';
  return isLanguage(language) ? language : 'en';
}

/** A compiled message for one locale (the formatter keeps its Intl objects). */
const compiled = onceEach((key: string): IntlMessageFormat => {
  const [language, locale, id] = key.split('\u0000') as [Language, string, MessageKey];
  const { IntlMessageFormat: Format } = vendored('intl-messageformat');
  return new Format(catalogueOf(language)[id], locale, undefined, { ignoreTag: true });
});

/** What a report's words are made with: `t(key, values)` in the report's language, with its locale's numbers and plurals. */
export interface Messages {
  language: Language;
  locale: string;
  t(key: MessageKey, values?: MessageValues): string;
  /** A message the catalogue may lack (a metric label by its English words, a sector by its code): the message, else `otherwise`. */
  tOr(key: string, otherwise: string): string;
  /** "a, b and c" in the language ("a、b、c" in Japanese). */
  list(items: string[]): string;
  /** A language's name in the report's language: "Deutsch", "日本語". */
  languageName(language?: Language): string;
}

/**
 * The messages of a locale, in the language `language` (by default the locale's report language):
 * numbers and plurals always follow the locale, the words the language.
 */
export function messages(locale: string, language: Language = reportLanguage(locale)): Messages {
  // The locale's rules with the language's words: a locale of another language (ko-KR with English words) formats as English.
  const formatLocale = reportLanguage(locale) === language ? locale : language;
  const lists = new Intl.ListFormat(formatLocale, { style: 'long', type: 'conjunction' });
  const names = new Intl.DisplayNames(formatLocale, { type: 'language' });
  const t = (key: MessageKey, values?: MessageValues): string => {
    const out = compiled(`${language}\u0000${formatLocale}\u0000${key}`).format(values);
    if (typeof out !== 'string') throw new Error(`message ${key} did not format to text`);
    return out;
  };
  return {
    language,
    locale: formatLocale,
    t,
    tOr: (key, otherwise) => (Object.hasOwn(catalogueOf('en'), key) ? t(key as MessageKey) : otherwise),
    list: (items) => lists.format(items),
    languageName: (other = language) => names.of(other) ?? other,
  };
}
