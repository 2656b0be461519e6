/**
 * The gallery of docs/visual.md: every configuration of the corpus (tests/visual/corpus) drawn by
 * the service's own code as /quickchart/chart draws it (the same parsing, Chart.js 2 translation,
 * extras and render threads; no HTTP or cache), as a small PNG under docs/gallery, and the table
 * between the gallery markers of docs/visual.md rewritten: each image with what QuickChart's
 * documentation says it shows and the known differences. `npm run docs:gallery`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { parseChartConfig, quickChartConfig } from '../functions/visual/quickchart';
import { bundledFontDir } from '../functions/visual/render/fonts';
import { RenderPool } from '../functions/visual/render/pool';

const ROOT = path.join(__dirname, '..', '..');
const CORPUS = path.join(ROOT, 'tests', 'visual', 'corpus');
const OUT = path.join(ROOT, 'docs', 'gallery');
const DOC = path.join(ROOT, 'docs', 'visual.md');
const START = '<!-- gallery:start (npm run docs:gallery writes this table) -->';
const END = '<!-- gallery:end -->';
const WIDTH = 400;
const HEIGHT = 240;
const LIMITS = { maxItems: 20, maxDimension: 4000, maxDatasets: 20, maxPoints: 5000, maxBodyBytes: 2 * 1024 * 1024 };

interface Entry {
  name: string;
  source: string;
  version: string;
  chart: string | Record<string, unknown>;
  encoding?: 'base64';
  backgroundColor?: string;
  shows: string;
  differences?: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

async function main() {
  const files = fs
    .readdirSync(CORPUS)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const pool = new RenderPool(2, 30_000, { dir: bundledFontDir(), extra: [] }, 1000);
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const rows: string[] = [];
  try {
    for (const file of files) {
      const entry = JSON.parse(fs.readFileSync(path.join(CORPUS, file), 'utf8')) as Entry;
      const text = typeof entry.chart === 'string' ? entry.chart : JSON.stringify(entry.chart);
      const chart = entry.encoding === 'base64' ? Buffer.from(text).toString('base64') : entry.chart;
      const config = quickChartConfig(parseChartConfig(chart, LIMITS, entry.encoding ?? 'url'), Number(entry.version) as 2 | 3 | 4);
      const { bytes } = await pool.run({
        kind: 'chart',
        config,
        width: WIDTH,
        height: HEIGHT,
        pixelRatio: 1,
        format: 'png',
        background: entry.backgroundColor ?? 'white',
      });
      const image = `${file.replace(/\.json$/, '')}.png`;
      // Committed images: RGB on white, deflated hard (pngjs), unlike the service's fast encoder.
      fs.writeFileSync(
        path.join(OUT, image),
        PNG.sync.write(PNG.sync.read(Buffer.from(bytes)), {
          colorType: 2,
          inputColorType: 6,
          inputHasAlpha: true,
          bgColor: { red: 255, green: 255, blue: 255 },
          deflateLevel: 9,
        }),
      );
      rows.push(
        `| ${file.slice(0, 2)} | ![${entry.name}](gallery/${image}) | \`${entry.name}\`, Chart.js ${entry.version} syntax. ${cell(entry.source)} | ${cell(entry.shows)} | ${cell(entry.differences ?? 'None beyond those above the table.')} |`,
      );
    }
  } finally {
    await pool.close();
  }
  const table = [
    START,
    '',
    "| # | Drawn here (400x240, /quickchart/chart) | Configuration and source | What QuickChart's documentation shows | Known differences |",
    '|---|---|---|---|---|',
    ...rows,
    '',
    END,
  ].join('\n');
  const doc = fs.readFileSync(DOC, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/visual.md has no gallery markers (${START} ... ${END})`);
  fs.writeFileSync(DOC, doc.slice(0, start) + table + doc.slice(end + END.length));
  process.stdout.write(`${rows.length} charts drawn into docs/gallery, table written into docs/visual.md\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
