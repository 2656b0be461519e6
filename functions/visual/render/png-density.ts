import { crc32 } from 'node:zlib';

const IHDR_END = 8 + 4 + 4 + 13 + 4; // signature, then IHDR's length, type, data and CRC

/**
 * Adds a pHYs chunk (pixel density) after IHDR, so documents place a 2x image at its layout size.
 * The canvas encoder writes no density of its own.
 */
export function withPngDensity(png: Buffer, dpi: number): Buffer {
  const pixelsPerMetre = Math.round(dpi / 0.0254);
  const chunk = Buffer.alloc(4 + 4 + 9 + 4);
  chunk.writeUInt32BE(9, 0);
  chunk.write('pHYs', 4, 'latin1');
  chunk.writeUInt32BE(pixelsPerMetre, 8);
  chunk.writeUInt32BE(pixelsPerMetre, 12);
  chunk.writeUInt8(1, 16); // unit: metre
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 17)), 17);
  return Buffer.concat([png.subarray(0, IHDR_END), chunk, png.subarray(IHDR_END)]);
}
