import { db } from '../../shared/sql/db';
import { demoReportRequest } from '../../scripts/demo-profile';
import { PdfReport, type PdfTools } from '../../tools/pdf-inspect';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn } from '../helpers/identity';
import { describeWithTool } from '../helpers/tools';
import { finishedReport } from './helpers';

/**
 * Issue 53's acceptance: the demo profile's report for companies named in Japanese, Korean,
 * Chinese, Thai, Arabic, Hebrew and Hindi. pdftotext gives each name back exactly (the text a
 * reader copies and searches, the Arabic lam-alef ligature in its order), every font is embedded,
 * each script in its own font, right-to-left names stand right to left on the page, and the
 * Japanese report stays under 1 MB.
 */
const NAMES: { script: string; name: string; font: RegExp }[] = [
  { script: 'Japanese', name: '株式会社サンプル東京', font: /NotoSansJP/ },
  { script: 'Korean', name: '삼성 테스트 주식회사', font: /NotoSansKR/ },
  { script: 'Chinese', name: '北京测试科技有限公司', font: /NotoSansSC/ },
  { script: 'Thai', name: 'บริษัท ทดสอบ จำกัด', font: /NotoSansThai/ },
  { script: 'Arabic', name: 'شركة الاختبار للتجارة', font: /DejaVuSans/ },
  { script: 'Hebrew', name: 'חברת בדיקה בע״מ', font: /DejaVuSans/ },
  { script: 'Hindi', name: 'परीक्षण कंपनी लिमिटेड', font: /NotoSansDevanagari/ },
  { script: 'emoji', name: 'Zürich Rocket 🚀 Ltd', font: /NotoEmoji/ },
];
const RIGHT_TO_LEFT = new Set(['Arabic', 'Hebrew']);
const HINDI = NAMES.find((n) => n.script === 'Hindi')!;

/**
 * The file Typst wrote: the rewrite of the text layer (report/pdf-mark-spans.ts) appends an
 * incremental update, whose trailer points back (/Prev) at Typst's own, so Typst's file ends at the
 * end-of-file marker before the last; a file without the update is Typst's as it is.
 */
function typstPart(bytes: Buffer): Buffer {
  const last = bytes.lastIndexOf('%%EOF');
  if (bytes.lastIndexOf('/Prev ') < bytes.lastIndexOf('trailer')) return bytes;
  return bytes.subarray(0, bytes.lastIndexOf('%%EOF', last - 1) + '%%EOF'.length);
}

/** pdftotext's text as a reader compares it: its bidi embedding marks dropped, white space as single spaces. */
const plain = (text: string) => text.replace(/[\u202a-\u202e\u2066-\u2069]/g, '').replace(/[\s\u00a0\u202f]+/g, ' ');

describeWithTool('poppler-utils', 'the report in every script a client writes in', (poppler) =>
  describeWithTool('mupdf-tools', 'with poppler-utils and mupdf-tools', (mupdf) => scriptChecks({ ...(poppler as unknown as PdfTools), mutool: mupdf.mutool })),
);

function scriptChecks(tools: PdfTools) {
  let host: TestHost;
  let token: string;

  beforeAll(async () => {
    host = await startTestHost({ env: { ORCHESTRATOR_LOG_FLUSH_MS: '20' } });
    const first = await signIn(host, 'scripts@example.com');
    await db().updateTable('users').set({ plan: 'pro' }).where('id', '=', first.user.id).execute();
    token = (await signIn(host, 'scripts@example.com')).accessToken;
  });
  afterAll(() => host.stop());

  async function order(body: unknown): Promise<PdfReport> {
    const status = await finishedReport<{ status: string; downloadLinks: { url: string }[] }>(host, token, body);
    expect(status.status).toBe('completed');
    return new PdfReport(Buffer.from(await (await fetch(status.downloadLinks[0].url)).arrayBuffer()), tools);
  }

  it.each(NAMES)('$script: "$name" comes out exactly on the cover and every page, in embedded fonts', async ({ script, name, font }) => {
    const pdf = await order(demoReportRequest(name));
    try {
      const pages = pdf.pages();
      for (let page = 1; page <= pages; page++) expect(plain(pdf.text(page))).toContain(name);
      expect(pdf.info().Title).toBe(`${name} – Business analysis report`);
      // The text layer's rewrite (report/pdf-mark-spans.ts, an update appended to Typst's file) leaves the cover as Typst drew it.
      const typst = new PdfReport(typstPart(pdf.bytes), tools);
      expect(pdf.png(1, 50).equals(typst.png(1, 50))).toBe(true);
      typst.close();
      // No placeholder and no note about undrawable text.
      expect(pdf.text()).not.toMatch(/\[(?:Han|Hangul|Thai|Arabic|Hebrew|Devanagari|Emoji|Symbols|Hiragana|Katakana)\]/);
      expect(plain(pdf.text())).not.toContain('cannot be drawn');
      // Every font embedded (as a subset: Typst embeds only the glyphs used), the script's own among them.
      const fonts = pdf.fonts();
      expect(fonts.filter((f) => !f.embedded)).toEqual([]);
      expect(fonts.filter((f) => !/^[A-Z]{6}\+/.test(f.name))).toEqual([]);
      expect(fonts.map((f) => f.name).join(' ')).toMatch(font);
      // Right-to-left names stand right to left: read in page order (no bidi), their letters come reversed.
      if (RIGHT_TO_LEFT.has(script)) {
        const visual = plain(pdf.visualText(1));
        expect(visual).toContain([...name].reverse().join(''));
        expect(visual).not.toContain(name);
      }
      if (script === 'Japanese') expect(pdf.bytes.length).toBeLessThan(1_000_000);
    } finally {
      pdf.close();
    }
  });

  it(`Hindi: the marks drawn back over their letters copy with them ("${HINDI.name}", no space inside a word), and the pages look as Typst drew them`, async () => {
    const pdf = await order(demoReportRequest(HINDI.name));
    // Typst's own file is the update's first part (report/pdf-mark-spans.ts appends the rewritten content streams).
    const typst = new PdfReport(typstPart(pdf.bytes), tools);
    try {
      expect(pdf.bytes.length).toBeGreaterThan(typst.bytes.length);
      expect(plain(typst.text(1))).not.toContain(HINDI.name);
      expect(plain(pdf.text(1))).toContain(HINDI.name);
      for (let page = 1; page <= pdf.pages(); page++) expect(pdf.png(page, 50).equals(typst.png(page, 50))).toBe(true);
    } finally {
      typst.close();
      pdf.close();
    }
  });

  it('a report in Latin script loads no script font: only DejaVu Sans is in the PDF', async () => {
    const pdf = await order(demoReportRequest('Demo Analytics Ltd'));
    try {
      expect([...new Set(pdf.fonts().map((f) => f.name.replace(/^[A-Z]{6}\+/, '')))].sort()).toEqual(['DejaVuSans', 'DejaVuSans-Bold']);
    } finally {
      pdf.close();
    }
  });
}
