import { randomFillSync } from 'node:crypto';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { encodePng } from '../../functions/visual/render/png';
import { decodePng } from './helpers';

/** A small image with opaque, half-transparent and empty areas and some anti-aliased text. */
function sample() {
  const canvas = createCanvas(61, 37);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#2563eb';
  ctx.fillRect(0, 0, 30, 37);
  ctx.fillStyle = 'rgba(220, 38, 38, 0.5)';
  ctx.fillRect(20, 10, 30, 20);
  ctx.fillStyle = '#111';
  ctx.font = '12px DejaVu Sans';
  ctx.fillText('Ab', 35, 12);
  return ctx.getImageData(0, 0, 61, 37);
}

test('the PNG decodes to exactly the pixels given, straight alpha included', async () => {
  const image = sample();
  const png = encodePng(image.data, image.width, image.height, 96);
  const decoded = decodePng(png);
  expect([decoded.width, decoded.height]).toEqual([61, 37]);
  expect(Buffer.from(decoded.data).equals(Buffer.from(image.data))).toBe(true);
  // A half-transparent red over nothing stays half-transparent red, not darkened by premultiplication.
  const at = (x: number, y: number) => [...decoded.data.subarray((y * 61 + x) * 4, (y * 61 + x) * 4 + 4)];
  // (Skia rounds through premultiplied storage, hence the one-step tolerance.)
  at(45, 25).forEach((channel, i) => expect(Math.abs(channel - [220, 38, 38, 128][i])).toBeLessThanOrEqual(1));
  // Another decoder (Skia's) reads it too.
  const again = await loadImage(png);
  expect([again.width, again.height]).toEqual([61, 37]);
});

test('pHYs carries the density in pixels per metre', () => {
  const image = sample();
  const png = encodePng(image.data, image.width, image.height, 192);
  const phys = png.indexOf('pHYs');
  expect(phys).toBeGreaterThan(0);
  expect(png.readUInt32BE(phys + 4)).toBe(Math.round(192 / 0.0254));
  expect(png.readUInt32BE(phys + 8)).toBe(Math.round(192 / 0.0254));
  expect(png[phys + 12]).toBe(1);
});

test('one image after another, larger and smaller, each decodes to exactly its own pixels (the rows buffer is reused)', () => {
  // Random pixels fill every byte, so anything left over from the image before would show.
  const noise = (width: number, height: number) => randomFillSync(new Uint8Array(width * height * 4));
  const sizes: [number, number][] = [
    [200, 120],
    [61, 37],
    [200, 120],
    [1, 1],
    [1500, 1500], // above the reuse cap: a buffer of its own
    [90, 300],
  ];
  for (const [width, height] of sizes) {
    const pixels = noise(width, height);
    const decoded = decodePng(encodePng(pixels, width, height, 96));
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    expect(Buffer.from(decoded.data).equals(Buffer.from(pixels))).toBe(true);
  }
});

test("the canvas's own premultiplied pixels (canvas.data()) give the same straight colours as getImageData, within Skia's rounding", () => {
  const canvas = createCanvas(256, 64);
  const ctx = canvas.getContext('2d');
  // Every alpha from 0 to 255 over three colours, and opaque pixels.
  for (let a = 0; a < 256; a++) {
    ctx.fillStyle = `rgba(220, 38, 180, ${a / 255})`;
    ctx.fillRect(a, 0, 1, 32);
  }
  ctx.fillStyle = '#2563eb';
  ctx.fillRect(0, 32, 256, 32);
  const straight = ctx.getImageData(0, 0, 256, 64).data;
  const decoded = decodePng(encodePng(canvas.data(), 256, 64, 96, true));
  let worst = 0;
  for (let i = 0; i < straight.length; i++) {
    const alpha = straight[i - (i % 4) + 3];
    // Colour channels of a fully transparent pixel carry nothing; alpha itself must match exactly.
    if (i % 4 === 3) expect(decoded.data[i]).toBe(straight[i]);
    else if (alpha > 0) worst = Math.max(worst, Math.abs(decoded.data[i] - straight[i]));
  }
  expect(worst).toBeLessThanOrEqual(1);
  // The opaque half is exactly the colour.
  expect([...decoded.data.subarray(256 * 40 * 4, 256 * 40 * 4 + 4)]).toEqual([0x25, 0x63, 0xeb, 255]);
});
