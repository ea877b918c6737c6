/**
 * Small real PDFs for tests, written byte by byte (one Helvetica text line per page, a correct xref table), and their
 * encrypted copies made by qpdf. pdfjs, pdftotext and qpdf all read them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tool-context';

/** A PDF with one page per entry of `pages`, each showing its text. */
export function textPdf(pages: readonly string[]): Buffer {
  const objects: string[] = [];
  const n = pages.length;
  // 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Count ${n} /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  pages.forEach((text, i) => {
    const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
    const stream = `BT /F1 18 Tf 72 720 Td (${escaped}) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    objects.push(`<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`);
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** `pdf` encrypted by qpdf (AES-256) with a user and an owner password. */
export function encryptedPdf(pdf: Buffer, userPassword: string, ownerPassword: string): Buffer {
  const dir = tempDir('deskhand-pdf-enc-');
  writeFileSync(join(dir, 'plain.pdf'), pdf);
  execFileSync('qpdf', ['--encrypt', userPassword, ownerPassword, '256', '--', join(dir, 'plain.pdf'), join(dir, 'locked.pdf')]);
  return readFileSync(join(dir, 'locked.pdf'));
}
