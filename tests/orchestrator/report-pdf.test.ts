import { SECTIONS } from '../../functions/orchestrator/workflow/stages';
import { db } from '../../shared/sql/db';
import { demoReportRequest } from '../../scripts/demo-profile';
import { PdfReport, type PdfTools } from '../../tools/pdf-inspect';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn } from '../helpers/identity';
import { describeWithTool } from '../helpers/tools';
import { finishedReport } from './helpers';

const NAME = 'Łódź Zürich Ωmega Аналитика';
/** A word a client should never read: a field name in snake_case. */
const SNAKE_CASE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/;
/** The text as a reader compares it: no-break spaces as spaces, line ends and runs of spaces as one space. */
const plain = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ');

/**
 * The PDF a paying client gets, ordered over HTTP as a pro user (visual service up), read with the
 * tools a checker would use: poppler-utils for text, fonts, images and pages, mupdf-tools for the
 * outline, the catalog and the structure tree.
 */
describeWithTool('poppler-utils', 'the report PDF as a client and a checker read it', (poppler) =>
  describeWithTool('mupdf-tools', 'with poppler-utils and mupdf-tools', (mupdf) => reportChecks({ ...(poppler as unknown as PdfTools), mutool: mupdf.mutool })),
);

function reportChecks(pdfTools: PdfTools) {
  let host: TestHost;
  let token: string;
  const tools = () => pdfTools;

  beforeAll(async () => {
    host = await startTestHost({ env: { ORCHESTRATOR_LOG_FLUSH_MS: '20' } });
    const first = await signIn(host, 'client@example.com');
    await db().updateTable('users').set({ plan: 'pro' }).where('id', '=', first.user.id).execute();
    token = (await signIn(host, 'client@example.com')).accessToken;
  });
  afterAll(() => host.stop());

  /** Orders a report, follows it to completed and downloads its PDF through the signed link. */
  async function order(body: unknown): Promise<{ pdf: PdfReport; status: { visuals: { status: string } } }> {
    const status = await finishedReport<{ status: string; visuals: { status: string }; downloadLinks: { url: string }[] }>(host, token, body);
    expect(status.status).toBe('completed');
    const bytes = Buffer.from(await (await fetch(status.downloadLinks[0].url)).arrayBuffer());
    return { pdf: new PdfReport(bytes, tools()), status };
  }

  /** What every report must be: the acceptance list of the report issue. */
  function checkReport(pdf: PdfReport, company: string, sections: string[]) {
    const pages = pdf.pages();
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(pages).toBeLessThanOrEqual(8);
    const text = pdf.text();
    // The company name exactly as sent: on the cover and in every running header.
    expect(pdf.text(1)).toContain(company);
    for (let page = 2; page <= pages; page++) expect(pdf.text(page)).toContain(company);
    expect(pdf.info().Title).toBe(`${company} – Business analysis report`);
    expect(text).not.toMatch(SNAKE_CASE);
    // "Page N of M" on every page after the cover, and none on the cover.
    expect(pdf.text(1)).not.toMatch(/Page \d+ of/);
    for (let page = 2; page <= pages; page++) expect(pdf.text(page)).toContain(`Page ${page} of ${pages}`);
    // Every page after the cover but the last is at least 60 % full.
    const fills = Array.from({ length: pages - 2 }, (_, i) => ({ page: i + 2, fill: pdf.fill(i + 2) }));
    expect(fills.filter((f) => f.fill < 0.6)).toEqual([]);
    // Every font embedded; no raster image anywhere (charts are vector drawings).
    const fonts = pdf.fonts();
    expect(fonts.length).toBeGreaterThan(0);
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
    expect(pdf.images()).toEqual([]);
    // A tagged PDF with a structure tree, a language and the title shown as the window's title.
    expect(pdf.info().Tagged).toBe('yes');
    const catalog = pdf.catalog();
    expect(catalog).toMatch(/\/StructTreeRoot \d+ 0 R/);
    expect(catalog).toMatch(/\/Lang \(en-US\)/);
    expect(catalog).toMatch(/\/Marked true/);
    expect(catalog).toMatch(/\/DisplayDocTitle true/);
    // A bookmark for each section, in order.
    expect(pdf.outline()).toEqual([...sections, 'About this report']);
    return text;
  }

  it('the demo profile: a consultancy report with cover figures, KPI strip, year table, captioned vector charts with alt text, in at most 8 pages', async () => {
    const { pdf, status } = await order(demoReportRequest('Demo Analytics Ltd'));
    try {
      expect(status.visuals.status).toBe('included');
      const text = plain(
        checkReport(
          pdf,
          'Demo Analytics Ltd',
          SECTIONS.map((s) => s.title),
        ),
      );
      // Labels, units and formats instead of field names; whole sentences.
      expect(text).toContain('Gross margin');
      expect(text).toContain('38.5 %');
      expect(text).toContain('Customer retention');
      expect(text).toContain('In its own words: “Engineering consultancy for water utilities.”');
      expect(text).not.toMatch(/water utilities Revenue/);
      // Cover: the headline figures and the plan; offline says so.
      const cover = plain(pdf.text(1));
      for (const expected of ['$4.42M', '+19.4 %', '8.8 %', 'Pro report', 'In this report', 'Generated offline']) expect(cover).toContain(expected);
      // The year-by-year table and numbered figures with a caption and a sentence.
      expect(text).toMatch(/Table 1\. Revenue, growth and net margin by year/);
      expect(text).toMatch(/Figure 1\. Revenue by year, USD millions\. Revenue rose by 42\.6 %/);
      expect(text).toMatch(/Figure 2\. Revenue growth and net margin by year, %\./);
      // The charts are vector drawings whose own labels are text.
      expect(text).toContain('Net margin (%)');
      // Each chart is a Figure in the structure tree, its alternative text the caption and the data in one line.
      const alts = pdf.figures().map((f) => plain(f.alt ?? ''));
      expect(alts.sort()).toEqual([
        'Revenue by year, USD millions: $3.10M in 2022, $3.65M in 2023, $4.42M in 2024.',
        'Revenue growth and net margin by year, %: 2022: net margin 7.7 %; 2023: growth +17.7 % and net margin 8.5 %; 2024: growth +21.1 % and net margin 10.3 %.',
      ]);
    } finally {
      pdf.close();
    }
  });

  it(`a company named "${NAME}" comes out exactly, in embedded fonts, in every header and the document title`, async () => {
    const { pdf } = await order({ ...demoReportRequest(NAME), locale: 'en-US' });
    try {
      checkReport(
        pdf,
        NAME,
        SECTIONS.map((s) => s.title),
      );
      expect(pdf.fonts().map((f) => f.name.replace(/^[A-Z]{6}\+/, ''))).toEqual(expect.arrayContaining(['DejaVuSans', 'DejaVuSans-Bold']));
    } finally {
      pdf.close();
    }
  });

  it('text in a script no shipped font covers gets a named placeholder and a note, never boxes or wrong glyphs; Thai and Han come out as written', async () => {
    const { pdf } = await order({
      ...demoReportRequest('ኢትዮጵያ Engineering'),
      profile: { ...demoReportRequest('x').profile, goals: ['Open an office in 東京 and กรุงเทพ'] },
    });
    try {
      const text = plain(pdf.text());
      expect(pdf.text(1)).toContain('[Ethiopic] Engineering');
      expect(text).toContain('Open an office in 東京 and กรุงเทพ');
      expect(text).toContain('Text in Ethiopic cannot be drawn');
      // The document's title keeps the original name.
      expect(pdf.info().Title).toBe('ኢትዮጵያ Engineering – Business analysis report');
      expect(pdf.fonts().filter((f) => !f.embedded)).toEqual([]);
    } finally {
      pdf.close();
    }
  });

  it('numbers, dates and the language follow the locale the request names', async () => {
    const { pdf } = await order({ ...demoReportRequest('Demo GmbH'), locale: 'de-DE' });
    try {
      const text = plain(pdf.text());
      expect(text).toContain('38,5 %');
      expect(text).toContain('4,42 Mio. $');
      expect(text).toMatch(/\d{1,2}\. [A-Z][a-zä]+ \d{4}/);
      // The report is in German (issue 53; tests/orchestrator/report-i18n.test.ts): the document language says so. The
      // offline writer's sections are English, and the cover says that too.
      expect(pdf.catalog()).toMatch(/\/Lang \(de-DE\)/);
      expect(text).toContain('Die Abschnitte dieses Berichts sind auf Englisch');
    } finally {
      pdf.close();
    }
  });
}
