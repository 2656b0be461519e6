import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Compression level of the image data. Charts are mostly flat colour: for an 800x400 bar chart
 * level 3 takes 1.3 ms and gives 22 KB, level 6 takes 5.7 ms for 14.5 KB, and deflate was a third
 * of a render's CPU at level 6. A render service is bound by CPU, not by a few KB per cached image.
 */
const DEFLATE_LEVEL = 3;

/**
 * The rows buffer of the last image encoded on this thread, reused by the next of the same size or
 * smaller (deflate is synchronous, so nothing else holds it meanwhile). A new buffer per image (1.3
 * MB for 800x400) is memory outside V8's heap, which made V8 run a full garbage collection every
 * few renders on each render thread. Images above the cap get a buffer of their own, so a rare
 * large one does not keep its memory.
 */
const REUSED_ROWS_MAX_BYTES = 8 * 1024 * 1024;
let reusedRows: Buffer | undefined;

function rowsBuffer(length: number): Buffer {
  if (length > REUSED_ROWS_MAX_BYTES) return Buffer.allocUnsafe(length);
  if (!reusedRows || reusedRows.length < length) reusedRows = Buffer.allocUnsafe(length);
  return reusedRows.subarray(0, length);
}

/** 255 / alpha for every alpha, to turn a premultiplied colour channel back into a straight one. */
const UNPREMULTIPLY = Float64Array.from({ length: 256 }, (_, alpha) => (alpha ? 255 / alpha : 0));

/**
 * Straight colour from premultiplied colour, in place, for the pixels of one row that are neither
 * opaque nor empty (the anti-aliased edges, and what is drawn half-transparent).
 */
function unpremultiplyRow(rows: Buffer, start: number, end: number): void {
  for (let i = start + 3; i < end; i += 4) {
    const alpha = rows[i];
    // Opaque pixels are straight already, and Skia stores a fully transparent pixel as all zeros.
    if (alpha === 255 || alpha === 0) continue;
    const scale = UNPREMULTIPLY[alpha];
    rows[i - 3] = Math.min(255, (rows[i - 3] * scale + 0.5) | 0);
    rows[i - 2] = Math.min(255, (rows[i - 2] * scale + 0.5) | 0);
    rows[i - 1] = Math.min(255, (rows[i - 1] * scale + 0.5) | 0);
  }
}

/**
 * An 8-bit RGBA PNG, with a pHYs chunk so documents place a 2x image at its layout size. The pixels
 * are straight RGBA, or `premultiplied` (the canvas's own memory, `canvas.data()`, which costs a
 * fifth of `getImageData` and leaves V8 no 5 MB typed array to collect at 2x); PNG stores straight
 * colour, so those are converted while the rows are copied. Why not the canvas's own encoder: it
 * tries every row filter at zlib level 6 (9.6 ms for an 800x400 chart, 33 ms at 2x, here);
 * unfiltered rows through node's zlib are smaller at the same level (row filters do not help flat
 * colour) and much faster at DEFLATE_LEVEL.
 */
export function encodePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number, dpi: number, premultiplied = false): Buffer {
  const stride = width * 4;
  const rows = rowsBuffer((stride + 1) * height); // each row: filter type 0 (none), then its pixels
  const pixels = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1) + 1;
    rows[start - 1] = 0;
    pixels.copy(rows, start, y * stride, (y + 1) * stride);
    if (premultiplied) unpremultiplyRow(rows, start, start + stride);
  }

  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // colour type: RGBA
  const pixelsPerMetre = Math.round(dpi / 0.0254);
  const density = Buffer.alloc(9);
  density.writeUInt32BE(pixelsPerMetre, 0);
  density.writeUInt32BE(pixelsPerMetre, 4);
  density.writeUInt8(1, 8); // unit: metre

  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('pHYs', density),
    chunk('IDAT', deflateSync(rows, { level: DEFLATE_LEVEL })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
