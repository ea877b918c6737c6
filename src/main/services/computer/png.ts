/** A minimal PNG encoder (8-bit RGBA, no filter) for screenshots: zlib from Node, CRC-32 from zlib. */
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * Encodes `width`×`height` pixels of 4 channels. `bgr`: the source is BGRA (X11 captures); alpha is always written
 * opaque (captures report alpha 0).
 */
export function encodePng(pixels: Uint8Array, width: number, height: number, opts: { bgr: boolean; rowBytes?: number }): Buffer {
  const stride = opts.rowBytes ?? width * 4;
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    const out = y * (width * 4 + 1);
    raw[out] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const i = y * stride + x * 4;
      const o = out + 1 + x * 4;
      raw[o] = pixels[opts.bgr ? i + 2 : i]!;
      raw[o + 1] = pixels[i + 1]!;
      raw[o + 2] = pixels[opts.bgr ? i : i + 2]!;
      raw[o + 3] = 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 6 })), chunk('IEND', Buffer.alloc(0))]);
}
