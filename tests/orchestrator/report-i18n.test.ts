import fs from 'node:fs';
import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { OfflineProvider } from '../../functions/orchestrator/ai/offline';
import { OpenAiProvider } from '../../functions/orchestrator/ai/openai';
import { checkSectionContent } from '../../functions/orchestrator/ai/section-content';
import { catalogueOf, LANGUAGES, messages, reportLanguage } from '../../functions/orchestrator/i18n/catalogue';
import type { MessageKey } from '../../functions/orchestrator/i18n/messages/en';
import { reportNotice } from '../../functions/orchestrator/notify/email';
import { clientFailureMessage } from '../../functions/orchestrator/report/status';
import { analyse, type ReportAnalysis } from '../../functions/orchestrator/report/analysis';
import { reportModel, type ReportDocument, type WrittenSection } from '../../functions/orchestrator/report/pdf';
import type { FontFallback } from '../../functions/orchestrator/report/report-fonts';
import type { ReportRequest } from '../../functions/orchestrator/report/submission';
import { reportCharts } from '../../functions/orchestrator/report/visuals';
import { reportFormat, sentence } from '../../functions/orchestrator/report/words';
import { sectionsFor } from '../../functions/orchestrator/workflow/stages';
import { parseAppConfig } from '../../functions/settings';
import { demoReportRequest } from '../../scripts/demo-profile';
import { vendored } from '../../shared/vendor';
import { db } from '../../shared/sql/db';
import { outboxFiles } from '../../tools/outbox';
import { PdfReport, type PdfTools } from '../../tools/pdf-inspect';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn } from '../helpers/identity';
import { describeWithTool } from '../helpers/tools';
import { sectionText, startChatServer, type ChatServer } from './chat-server';
import { completedReport, createShare } from './share-helpers';
import { waitFor } from './helpers';

/**
 * Issue 53, item 4: the report in the client's language. The catalogue (every language has every
 * key and placeholder English has), the locale → language rule, the AI asked for the language and
 * held to it by the schema, the model of a Japanese report (headings, captions, the stand-in's
 * Japanese sections), and over HTTP a German report read with pdftotext, a Japanese one through
 * its shared page (the PDF's CJK glyphs wait for the fonts of items 1-3), and the e-mail.
 */

/** The text as a reader compares it: no-break spaces as spaces, line ends and runs of spaces as one space. */
const plain = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ');

/** Every argument of a message with its kind (argument, number, select, plural...), nested ones included. */
function argumentsOf(elements: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const e of elements) {
    if ('value' in e && (e.type === 1 || e.type === 2 || e.type === 3 || e.type === 4 || e.type === 5 || e.type === 6)) out.add(`${e.value}:${e.type}`);
    if ('options' in e) for (const option of Object.values(e.options)) argumentsOf(option.value, out);
  }
  return out;
}
const ast = (message: string) => new (vendored('intl-messageformat').IntlMessageFormat)(message, 'en', undefined, { ignoreTag: true }).getAst();

/** Values for every placeholder any message has: the select and plural arguments' cases each tried. */
const SAMPLES: Record<string, string | number>[] = [
  {
    company: 'Acme',
    industry: 'Manufacturing',
    code: '31-33',
    plan: 'pro',
    id: 'rpt-1',
    page: '2',
    pages: '5',
    language: 'Deutsch',
    scripts: 'Han',
    year: '2024',
    from: '2021',
    to: '2024',
    income: 'yes',
    currency: 'EUR',
    unit: 'millions',
    amount: '€4.4M',
    direction: 'up',
    percent: '12 %',
    first: '1',
    last: '2',
    series: 'both',
    low: '1 %',
    high: '2 %',
    range: '1 %',
    margin: '3 %',
    value: '4 %',
    values: 'a and b',
    n: 1,
    date: '2026-11-26',
    locale: 'de-DE',
    model: 'gpt',
    sections: 'A',
    count: 1,
    font: 'DejaVu Sans',
    section: 'S',
    link: 'https://example.com',
    days: 1,
  },
];
SAMPLES.push({ ...SAMPLES[0], plan: 'free', income: 'no', unit: 'none', direction: 'down', series: 'growth', n: 2.5, model: 'none', count: 3, days: 7 });

/** A fallback that keeps every script: the model as the shared page and the fonts branch see it. */
const KEEP_ALL: FontFallback = { scripts: new Set(), fit: (text) => text };

const GENERATED_AT = new Date('2026-11-26T09:00:00Z');

/** The report document the workflow would typeset, its sections from `ai`. */
async function documentOf(analysis: ReportAnalysis, ai: { writeSection: OfflineProvider['writeSection']; offline: boolean }): Promise<ReportDocument> {
  const sections: WrittenSection[] = [];
  for (const section of sectionsFor('pro')) {
    const draft = await ai.writeSection(section, analysis);
    sections.push({
      id: section.id,
      title: messages(analysis.locale).t(`section.${section.id}`),
      content: draft.content,
      model: draft.model,
      structuredOutput: draft.structuredOutput,
    });
  }
  return {
    trackingId: 'rpt-i18n',
    plan: 'pro',
    generatedAt: GENERATED_AT,
    analysis,
    sections,
    visuals: { charts: [], infographic: null, status: 'included', error: null },
    offline: ai.offline,
  };
}

const requestIn = (locale: string, company = 'Demo Analytics'): ReportRequest => ({ ...demoReportRequest(company), locale });

describe('the message catalogue', () => {
  const english = catalogueOf('en');
  const keys = Object.keys(english) as MessageKey[];

  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s has every key English has, with the same placeholders, and no other key', (language) => {
    const catalogue = catalogueOf(language) as Record<string, string>;
    expect(Object.keys(catalogue).sort()).toEqual([...keys].sort());
    for (const key of keys) expect([key, [...argumentsOf(ast(catalogue[key]))].sort()]).toEqual([key, [...argumentsOf(ast(english[key]))].sort()]);
  });

  it.each(LANGUAGES)('every %s message formats with every case of its arguments', (language) => {
    for (const values of SAMPLES) {
      const { t } = messages(language, language);
      for (const key of keys) {
        const text = t(key, values);
        expect([key, text.length > 0 && !/[{}]/.test(text)]).toEqual([key, true]);
      }
    }
  });

  it('takes the language from the locale, with English for a language it has no catalogue for', () => {
    expect(
      ['en-US', 'en-GB', 'de-DE', 'de-AT', 'de-CH', 'fr-CA', 'es-MX', 'ja-JP', 'zh-CN', 'zh-SG', 'zh', 'zh-TW', 'zh-Hant-HK', 'ko-KR', 'pt-BR', 'xx'].map(
        (l) => [l, reportLanguage(l)],
      ),
    ).toEqual([
      ['en-US', 'en'],
      ['en-GB', 'en'],
      ['de-DE', 'de'],
      ['de-AT', 'de'],
      ['de-CH', 'de'],
      ['fr-CA', 'fr'],
      ['es-MX', 'es'],
      ['ja-JP', 'ja'],
      ['zh-CN', 'zh'],
      ['zh-SG', 'zh'],
      ['zh', 'zh'],
      ['zh-TW', 'en'],
      ['zh-Hant-HK', 'en'],
      ['ko-KR', 'en'],
      ['pt-BR', 'en'],
      ['xx', 'en'],
    ]);
  });

  it('plurals and numbers through the catalogue follow the locale: German words with Austrian and Swiss numbers', () => {
    expect(plain(reportFormat('de-AT').points(1.5))).toBe('1,5 Prozentpunkte');
    expect(plain(reportFormat('de-DE').points(1))).toBe('1 Prozentpunkt');
    expect(plain(reportFormat('de-DE').metric('dso', 1, 'EUR'))).toBe('1 Tag');
    expect(plain(reportFormat('fr-FR').metric('payback_months', 14.5, 'EUR'))).toBe('14,5 mois');
    expect(plain(reportFormat('es-ES').metric('dso', 45, 'EUR'))).toBe('45 días');
    expect(plain(reportFormat('ja-JP').points(2.25))).toBe('2.3 ポイント');
    expect(plain(reportFormat('en-US').points(1234.5))).toBe('1,234.5 percentage points');
    expect(plain(reportFormat('de-CH').points(1234.5))).toBe(`${reportFormat('de-CH').number(1234.5)} Prozentpunkte`);
    // The offline writer's words stay English with the locale's numbers.
    expect(plain(reportFormat('de-DE', 'en').points(1.5))).toBe('1,5 percentage points');
  });
});

describe('the sections in the report language', () => {
  let chat: ChatServer;
  const provider = () =>
    new OpenAiProvider(
      'openai',
      parseAppConfig({ SERVICES: 'orchestrator', ORCHESTRATOR_AI_ENDPOINT: chat.url, ORCHESTRATOR_AI_MODEL: 'stand-in', ORCHESTRATOR_AI_MAX_RETRIES: '0' }),
      () => {
        throw new Error('no managed identity here');
      },
    );
  beforeAll(async () => {
    chat = await startChatServer();
  });
  beforeEach(() => {
    chat.requests.length = 0;
    chat.script([{ status: 200 }]);
  });
  afterAll(() => chat.close());

  it('asks the model for the language in the prompt and the schema, and refuses an answer in another language', async () => {
    const analysis = analyse(requestIn('ja-JP'));
    const section = sectionsFor('pro')[1];
    const english = JSON.stringify({ language: 'ja', paragraphs: ['Revenue grew steadily over the period.'], bullets: [] });
    const claimsEnglish = JSON.stringify({ language: 'en', paragraphs: ['売上高は期間中に着実に伸びており、利益率も改善しました。'], bullets: [] });
    chat.script([
      { status: 200, content: english },
      { status: 200, content: claimsEnglish },
    ]);
    const draft = await provider().writeSection(section, analysis);
    // Both answers off the schema: the section falls back to the deterministic (English) text.
    expect(draft.structuredOutput).toBe('deterministic');
    const [first, second] = chat.requests;
    expect(first.body.messages[0].content).toContain('plain Japanese');
    expect(first.body.messages[1].content).toContain('Section: 財務分析');
    expect(first.body.response_format?.json_schema?.schema.properties?.language).toMatchObject({ type: 'string', enum: ['ja'] });
    expect(second.body.messages[3].content).toContain('/paragraphs/0 must match pattern');
    expect(checkSectionContent(claimsEnglish, 'ja')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('/language must be equal to one of the allowed values'),
    });
    // Japanese sentences end with 。, and stay whole: no full stop is added.
    expect(checkSectionContent(JSON.stringify({ language: 'ja', paragraphs: ['売上高は期間中に着実に伸びました。'], bullets: [] }), 'ja')).toEqual({
      ok: true,
      content: { paragraphs: ['売上高は期間中に着実に伸びました。'], bullets: [] },
    });
    // A CJK sentence without its end gets 。, a Latin one a full stop.
    expect([sentence('売上高は伸びた'), sentence('营业收入增长'), sentence('Umsatz wuchs')]).toEqual(['売上高は伸びた。', '营业收入增长。', 'Umsatz wuchs.']);
    // Chinese has Han characters but no kana: a Japanese answer passes for Japanese only... and a Chinese one for Chinese.
    expect(checkSectionContent(JSON.stringify({ language: 'zh', paragraphs: ['营业收入稳步增长，净利润率也有所提高。'], bullets: [] }), 'zh')).toMatchObject({
      ok: true,
    });
    expect(checkSectionContent(JSON.stringify({ language: 'ja', paragraphs: ['营业收入稳步增长，净利润率也有所提高。'], bullets: [] }), 'ja')).toMatchObject({
      ok: false,
    });
  });

  it('a ja-JP report: Japanese headings, captions, table heads, cover and closing page, and the stand-in’s Japanese sections', async () => {
    const analysis = analyse(requestIn('ja-JP', '株式会社サンプル東京'));
    const document = await documentOf(analysis, provider());
    expect(document.sections.every((s) => s.structuredOutput === 'valid')).toBe(true);
    const { model } = reportModel(document, reportCharts(analysis), null, KEEP_ALL);
    expect([model.lang, model.region]).toEqual(['ja', 'JP']);
    expect(model).toMatchObject({
      subtitle: '企業分析レポート',
      plan: 'Pro レポート',
      labels: { contents: '目次', page: '%page% / %pages% ページ', figure: '図', table: '表', reference: '参照番号 rpt-i18n' },
      title: '株式会社サンプル東京 – 企業分析レポート',
      date: '2026年11月26日',
    });
    expect(model.sections.map((s) => s.title)).toEqual([
      'エグゼクティブサマリー',
      '財務分析',
      '市場でのポジション',
      '業務と生産性',
      'リスクと課題',
      '提言',
      '本レポートについて',
    ]);
    expect(model.headline.map((f) => f.label)).toEqual(['売上高（2024年）', '年平均成長率（2022–2024年）', '平均純利益率', '従業員数']);
    expect(model.sector).toBe('専門・科学・技術サービス業（NAICS 54）');
    expect(model.sections[0].indicators.map((f) => f.label)).toEqual([
      '売上高成長率（2024年）',
      '純利益率（2024年）',
      '従業員 1 人当たり売上高',
      '売上総利益率',
      '顧客維持率',
    ]);
    const finance = model.sections[1];
    expect(finance.table).toMatchObject({ caption: '年別の売上高、成長率、純利益率', columns: ['年', '売上高（USD）', '成長率', '純利益（USD）', '純利益率'] });
    expect(model.sections[0].charts[0]).toMatchObject({
      caption: '年別売上高（百万 USD）',
      finding: expect.stringMatching(/^売上高は2022年から2024年にかけて.*増加し/),
    });
    expect(finance.charts[0].caption).toBe('年別の売上高成長率と純利益率（%）');
    // The sections as the stand-in wrote them, in Japanese, for every section.
    for (const [i, s] of model.sections.slice(0, -1).entries()) expect(s.paragraphs).toEqual([sectionText('ja', model.sections[i].title)]);
    expect(model.sections[6].paragraphs[0]).toMatch(
      /^本レポートは、株式会社サンプル東京が提出したプロフィールと数値のみに基づき、2026年11月26日に作成されました。/,
    );
    expect(model.sections[6].paragraphs[2]).toContain('AI モデル（stand-in）が本レポートの数値をもとに日本語で作成しました');
    expect(model.notes).toEqual([]);
  });

  it.each([
    ['fr-FR', 'Synthèse', 'Rapport d’analyse d’entreprise', 'Tableau'],
    ['es-MX', 'Resumen ejecutivo', 'Informe de análisis empresarial', 'Tabla'],
    ['zh-CN', '执行摘要', '企业分析报告', '表'],
    ['de-AT', 'Zusammenfassung', 'Unternehmensanalyse', 'Tabelle'],
  ])('a %s report: its language’s headings, cover and labels, and the stand-in’s sections in it', async (locale, summary, subtitle, table) => {
    const analysis = analyse(requestIn(locale));
    const document = await documentOf(analysis, provider());
    expect(document.sections.every((s) => s.structuredOutput === 'valid')).toBe(true);
    const { model } = reportModel(document, reportCharts(analysis), null, KEEP_ALL);
    const language = reportLanguage(locale);
    expect([model.subtitle, model.sections[0].title, model.labels.table, model.lang]).toEqual([subtitle, summary, table, language]);
    expect(model.sections[0].paragraphs).toEqual([sectionText(language, summary)]);
    // No placeholder left unformatted anywhere in the model.
    expect(JSON.stringify(model)).not.toMatch(/\{[a-z]+[,}]/);
  });

  it('a de-DE report from the offline writer: German fixed text, and the cover says its prose is English', async () => {
    const analysis = analyse(requestIn('de-DE'));
    const { model } = reportModel(await documentOf(analysis, new OfflineProvider()), reportCharts(analysis), null, KEEP_ALL);
    expect(model.notes).toEqual([
      'Offline erstellt: Der Text wurde ohne KI-Modell deterministisch aus den übermittelten Zahlen geschrieben.',
      'Die Abschnitte dieses Berichts sind auf Englisch: Sie wurden offline ohne KI-Modell geschrieben, und der Offline-Schreiber schreibt nur Englisch. Überschriften, Tabellen und Beschriftungen sind auf Deutsch.',
    ]);
    expect(model.sections[0].title).toBe('Zusammenfassung');
    expect(model.sections[0].paragraphs[0]).toMatch(/^Demo Analytics, founded in 2012, operates in/);
    // An English report from the offline writer says nothing of the sort.
    const english = analyse(requestIn('en-GB'));
    const { model: en } = reportModel(await documentOf(english, new OfflineProvider()), [], null, KEEP_ALL);
    expect(en.notes).toEqual(['Generated offline: the text was written deterministically from the submitted figures, without an AI model.']);
  });

  it('the report e-mail in the report’s language', () => {
    const ready = reportNotice('a@example.com', { status: 'completed', company: 'Acme', trackingId: 'rpt-1', link: 'https://x/r', locale: 'de-AT' });
    expect(ready.subject).toBe('Ihr Bericht über Acme ist fertig');
    expect(ready.text).toContain('Hier öffnen: https://x/r');
    expect(reportNotice('a@example.com', { status: 'failed', company: 'Acme', trackingId: 'rpt-1', link: 'https://x/r', locale: 'ja-JP' }).subject).toBe(
      'Acmeのレポートを作成できませんでした',
    );
    expect(reportNotice('a@example.com', { status: 'completed', company: 'Acme', trackingId: 'rpt-1', link: 'https://x/r' }).subject).toBe(
      'Your report on Acme is ready',
    );
  });

  it('a failed report’s reason in the report’s language for its e-mail, in English for the status API and webhooks', () => {
    expect(clientFailureMessage('AI_SERVICE', false, 'de-DE')).toBe(
      'Der KI-Dienst, der den Bericht schreibt, ist ausgefallen. Nennen Sie dem Support seine Tracking-ID; ein Administrator kann ihn erneut ausführen.',
    );
    expect(clientFailureMessage('TIMEOUT', false, 'ja-JP')).toMatch(/^レポートの作成に時間がかかりすぎたため/);
    expect(clientFailureMessage(null, true, 'fr-FR')).toBe('Le rapport a été annulé à votre demande ; il n’est pas décompté de votre quota.');
    expect(clientFailureMessage('SOMETHING_NEW', false)).toBe(
      'The report could not be produced because of an error on our side. Quote its tracking id to support; an administrator can run it again.',
    );
  });
});

/**
 * Over HTTP through the dev host with the local AI stand-in: a de-DE report read from its PDF, a
 * ja-JP report from its shared page (a browser draws every script) and the PDF's text layer as far
 * as the report's font goes, and the German notice e-mail.
 */
describeWithTool('poppler-utils', 'reports in German and Japanese over HTTP', (poppler) => {
  let host: TestHost;
  let chat: ChatServer;
  let token: string;
  let email: string;

  beforeAll(async () => {
    chat = await startChatServer();
    host = await startTestHost({
      env: { ORCHESTRATOR_AI_ENDPOINT: chat.url, ORCHESTRATOR_AI_MAX_RETRIES: '0', ORCHESTRATOR_AI_TIMEOUT_MS: '20000', ORCHESTRATOR_LOG_FLUSH_MS: '20' },
    });
    const first = await signIn(host, 'i18n@example.com');
    await db().updateTable('users').set({ plan: 'pro' }).where('id', '=', first.user.id).execute();
    token = (await signIn(host, 'i18n@example.com')).accessToken;
    email = first.user.email;
  });
  afterAll(async () => {
    await chat?.close();
    await host?.stop();
  });

  const pdfOf = async (trackingId: string) => {
    const share = await createShare(host, token, trackingId);
    const bytes = Buffer.from(await (await fetch(share.pdfUrl)).arrayBuffer());
    return { pdf: new PdfReport(bytes, poppler as unknown as PdfTools), page: await (await fetch(share.url)).text() };
  };

  it('de-DE: German headings, captions, table heads, page footer, closing page and sections in the PDF text; the e-mail in German', async () => {
    const trackingId = await completedReport(host, token, requestIn('de-DE', 'Müller Analytik GmbH'));
    const { pdf } = await pdfOf(trackingId);
    const text = plain(pdf.text());
    expect(pdf.info().Title).toBe('Müller Analytik GmbH – Unternehmensanalyse');
    const cover = plain(pdf.text(1));
    expect(cover).toContain('UNTERNEHMENSANALYSE');
    expect(cover).toContain('Pro-Bericht');
    expect(cover).toContain('Inhalt');
    expect(cover).toContain('Umsatz 2024');
    expect(cover).toContain('Wachstum pro Jahr, 2022–2024');
    expect(cover).toContain(`Referenz ${trackingId}`);
    expect(cover).toContain('Freiberufliche, wissenschaftliche und technische Dienstleistungen (NAICS 54)');
    for (const label of ['Umsatzwachstum 2024', 'Nettomarge 2024', 'Umsatz je Beschäftigten', 'Bruttomarge', 'Kundenbindung']) expect(text).toContain(label);
    for (const heading of [
      'Zusammenfassung',
      'Finanzanalyse',
      'Marktposition',
      'Betrieb und Produktivität',
      'Risiken und Herausforderungen',
      'Empfehlungen',
      'Über diesen Bericht',
    ])
      expect(text).toContain(heading);
    expect(text).toContain('Tabelle 1. Umsatz, Wachstum und Nettomarge nach Jahr');
    expect(text).toMatch(/Jahr Umsatz \(USD\) Wachstum Jahresüberschuss \(USD\) Nettomarge/);
    expect(text).toContain('Abbildung 1. Umsatz nach Jahr, Mio. USD. Der Umsatz stieg zwischen 2022 und 2024 um');
    expect(text).toContain('Abbildung 2. Umsatzwachstum und Nettomarge nach Jahr, %.');
    expect(text).toContain(`Seite 2 von ${pdf.pages()}`);
    expect(text).toContain(plain(sectionText('de', 'Finanzanalyse')));
    expect(text).toMatch(/Der Text wurde von einem KI-Modell \([^)]+\) auf Deutsch aus den Zahlen dieses Berichts geschrieben/);
    expect(text).not.toMatch(/\b(Page \d|Figure \d|Table \d|Executive Summary|About this report|In this report)\b/);
    // The notice e-mail, once the dispatcher has sent it, in German.
    const mail = await waitFor(
      async () =>
        outboxFiles(host.dataDir)
          .map((file) => fs.readFileSync(file, 'latin1'))
          .map((raw) =>
            Buffer.from(
              raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
              'latin1',
            ).toString('utf8'),
          )
          .find((m) => m.includes(trackingId) && m.includes(email)),
      30_000,
      'the notice e-mail',
    );
    expect(mail).toContain('Ihr Bericht über Müller Analytik GmbH ist fertig.');
    expect(mail).toContain(`Tracking-ID: ${trackingId}`);
  });

  it('ja-JP: the shared page and the PDF in Japanese, charts included, with the stand-in’s Japanese sections', async () => {
    const trackingId = await completedReport(host, token, requestIn('ja-JP', 'Sample KK'));
    const { pdf, page } = await pdfOf(trackingId);
    expect(page).toContain('<html lang="ja-JP"');
    for (const words of [
      '企業分析レポート',
      '目次',
      'エグゼクティブサマリー',
      '財務分析',
      '本レポートについて',
      '年別の売上高、成長率、純利益率',
      '表 1.',
      'PDF をダウンロード',
    ])
      expect(page).toContain(words);
    // With the script fonts the charts keep their Japanese text: two inline SVG figures with Japanese captions, no note that they are missing.
    expect(page).not.toContain('グラフをこの文書に組み込めませんでした');
    expect(page.match(/<svg /g)).toHaveLength(2);
    expect(page).toContain('<strong>図 1.</strong> 年別売上高');
    expect(page).toContain(sectionText('ja', '財務分析'));
    expect(page).toMatch(/本文は AI モデル（[^）]+）が本レポートの数値をもとに日本語で作成しました/);
    // The PDF says the same in Japanese: its title, headings, table and figure captions, the stand-in's sections.
    expect(pdf.info().Title).toBe('Sample KK – 企業分析レポート');
    const text = plain(pdf.text());
    for (const words of ['Sample KK', '企業分析レポート', 'エグゼクティブサマリー', '財務分析', '本レポートについて', '表 1.', '図 1.'])
      expect(text).toContain(words);
    expect(text).toMatch(/2 \/ \d+/);
    expect(text).not.toMatch(/\b(Page \d|Executive Summary|About this report)\b/);
  });
});
