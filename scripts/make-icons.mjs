#!/usr/bin/env node
/**
 * Draws the app icon (a rounded square with a check: "every action approved") and writes it at the sizes each OS
 * wants, with no image tools needed: resources/icons/<N>x<N>.png (Linux, electron-builder takes the folder),
 * resources/icon.png (1024), resources/icon.ico (Windows; PNG entries 16–256) and resources/icon.icns (macOS; PNG
 * entries 16–1024). The files are committed; run `node scripts/make-icons.mjs` after changing the drawing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources');
export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** ICNS chunk types holding PNG data, by pixel size (the @2x types share sizes with the 1x ones above them). */
export const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** An RGBA PNG from a size×size×4 pixel buffer. */
export function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function distToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** The mark in unit coordinates: 0 outside, 1 the square, 2 the check. */
function shapeAt(x, y) {
  const m = 0.06;
  const r = 0.2;
  const cx = Math.max(m + r, Math.min(1 - m - r, x));
  const cy = Math.max(m + r, Math.min(1 - m - r, y));
  if (Math.hypot(x - cx, y - cy) > r) return 0;
  const w = 0.075;
  if (distToSegment(x, y, 0.28, 0.53, 0.43, 0.68) < w || distToSegment(x, y, 0.43, 0.68, 0.73, 0.34) < w) return 2;
  return 1;
}

export function drawIcon(size) {
  const rgba = Buffer.alloc(size * size * 4);
  const ss = size >= 256 ? 3 : 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let square = 0;
      let check = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const s = shapeAt((x + (sx + 0.5) / ss) / size, (y + (sy + 0.5) / ss) / size);
          if (s === 1) square++;
          else if (s === 2) check++;
        }
      }
      const n = ss * ss;
      const cover = (square + check) / n;
      const t = y / size; // a top-to-bottom blue gradient
      const bg = [Math.round(46 - 14 * t), Math.round(108 - 30 * t), Math.round(230 - 40 * t)];
      const mix = cover ? check / (square + check) : 0;
      const i = (y * size + x) * 4;
      rgba[i] = Math.round(bg[0] + (255 - bg[0]) * mix);
      rgba[i + 1] = Math.round(bg[1] + (255 - bg[1]) * mix);
      rgba[i + 2] = Math.round(bg[2] + (255 - bg[2]) * mix);
      rgba[i + 3] = Math.round(255 * cover);
    }
  }
  return encodePng(size, rgba);
}

/** A Windows .ico whose entries are PNGs (supported since Vista; 256 is stored as 0 in the directory). */
export function encodeIco(pngs) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  const dir = Buffer.alloc(16 * pngs.length);
  let offset = 6 + dir.length;
  pngs.forEach(([size, png], i) => {
    const e = i * 16;
    dir[e] = size >= 256 ? 0 : size;
    dir[e + 1] = size >= 256 ? 0 : size;
    dir.writeUInt16LE(1, e + 4); // planes
    dir.writeUInt16LE(32, e + 6); // bits per pixel
    dir.writeUInt32LE(png.length, e + 8);
    dir.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, dir, ...pngs.map(([, png]) => png)]);
}

/** A macOS .icns of PNG chunks. */
export function encodeIcns(entries) {
  const chunks = entries.map(([type, png]) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const body = Buffer.concat(chunks);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'latin1');
  head.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([head, body]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pngs = new Map(LINUX_SIZES.map((s) => [s, drawIcon(s)]));
  mkdirSync(join(OUT, 'icons'), { recursive: true });
  for (const [s, png] of pngs) writeFileSync(join(OUT, 'icons', `${s}x${s}.png`), png);
  writeFileSync(join(OUT, 'icon.png'), pngs.get(1024));
  writeFileSync(join(OUT, 'icon.ico'), encodeIco(ICO_SIZES.map((s) => [s, pngs.get(s)])));
  writeFileSync(join(OUT, 'icon.icns'), encodeIcns(ICNS_TYPES.map(([type, s]) => [type, pngs.get(s)])));
  process.stdout.write(`icons written to ${OUT}\n`);
}
