/**
 * A QuickChart-shaped baseline the visual bench runs beside our service: one plain Node process,
 * one thread, no cache, Chart.js 4 on @napi-rs/canvas, a new chart per request, the canvas's own
 * encoders (Skia's PNG encoder, Skia's SVG canvas with the full DejaVu fonts), answering QuickChart's
 * POST body `{ chart, width, height, format, devicePixelRatio, backgroundColor }` with the image.
 * It is what a QuickChart server is on this stack, less QuickChart's vm2 sandbox (the chart is JSON
 * here), so it is if anything cheaper than QuickChart. The bench forks it and reads its CPU from /proc.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCanvas, GlobalFonts, SvgExportFlag } from '@napi-rs/canvas';
import { Chart, type ChartConfiguration, type ChartItem } from 'chart.js/auto';
import { bundledFontDir, FONT_ALIASES, fontFiles } from '../../functions/visual/render/fonts';

interface Body {
  chart: string | Record<string, unknown>;
  width?: number;
  height?: number;
  format?: 'png' | 'svg';
  devicePixelRatio?: number;
  backgroundColor?: string;
}

for (const alias of FONT_ALIASES) for (const file of fontFiles(bundledFontDir())) GlobalFonts.registerFromPath(file, alias);

function render(body: Body): { bytes: Buffer; type: string } {
  const width = body.width ?? 500;
  const height = body.height ?? 300;
  const svg = body.format === 'svg';
  const config = (typeof body.chart === 'string' ? JSON.parse(body.chart) : body.chart) as ChartConfiguration;
  const background = body.backgroundColor ?? 'white';
  const canvas = svg ? createCanvas(width, height, SvgExportFlag.NoPrettyXML) : createCanvas(width, height);
  const chart = new Chart(canvas.getContext('2d') as unknown as ChartItem, {
    ...config,
    options: { ...config.options, animation: false, responsive: false, devicePixelRatio: svg ? 1 : (body.devicePixelRatio ?? 2) },
    plugins: [
      {
        id: 'background',
        beforeDraw(c) {
          c.ctx.fillStyle = background;
          c.ctx.fillRect(0, 0, c.width, c.height);
        },
      },
    ],
  });
  try {
    const bytes = 'getContent' in canvas ? canvas.getContent() : canvas.toBuffer('image/png');
    return { bytes, type: svg ? 'image/svg+xml' : 'image/png' };
  } finally {
    chart.destroy();
  }
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      const { bytes, type } = render(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body);
      response.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
      response.end(bytes);
    } catch (error) {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end(String((error as Error).message));
    }
  });
});

server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
