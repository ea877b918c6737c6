/**
 * read_pdf with poppler (issue 54, item 4): where `pdftotext` is installed the reader runs it (and `pdfinfo`) through
 * the process launcher with the PDF on stdin, and its answer has the pdfjs reader's shape (rows, tabs between a
 * table's cells, page markers, title); without poppler (DESKHAND_PDF_READER=pdfjs, or a launcher that finds no
 * program) pdfjs answers the same. A password always goes to pdfjs.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PopplerReader, launchPoppler, layoutRows, type PopplerRun } from '../../../src/main/services/pdf/poppler';
import { PdfJsReader } from '../../../src/main/services/pdf/read';

/** A two-page PDF written by hand (standard Helvetica, no Chromium needed): a heading, a two-column table, a title. */
function samplePdf(): Buffer {
  const page = (ops: string) => `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
  const text = (x: number, y: number, s: string) => `BT /F1 12 Tf ${x} ${y} Td (${s}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 7 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    page([text(72, 720, 'Quarterly report'), text(72, 690, 'Region'), text(300, 690, 'Sales'), text(72, 670, 'North'), text(300, 670, '1200'), text(72, 650, 'South'), text(300, 650, '980')].join('\n')),
    page(text(72, 720, 'Second page text')),
    '<< /Title (Quarterly) /Author (Finance team) >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 8 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// poppler-utils is part of the test machine (compositions.test.ts checks create_pdf with pdftotext too).
execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });

/** The launcher's door, with every call recorded (program, arguments, and what its stdout was). */
function recording(): { run: PopplerRun; calls: { program: string; args: string[]; ok: boolean }[] } {
  const calls: { program: string; args: string[]; ok: boolean }[] = [];
  return {
    calls,
    run: async (program, args, input, signal) => {
      const out = await launchPoppler(program, args, input, signal);
      calls.push({ program, args, ok: out !== null });
      return out;
    },
  };
}

describe('read_pdf with and without poppler', () => {
  const pdf = samplePdf();

  it('pdfjs (the fallback) reads the sample: rows, tab between cells, pages, title', async () => {
    const text = await new PdfJsReader().read(pdf);
    expect(text.pageCount).toBe(2);
    expect(text.info).toEqual({ title: 'Quarterly', author: 'Finance team' });
    expect(text.pages).toEqual([
      { page: 1, text: 'Quarterly report\nRegion\tSales\nNorth\t1200\nSouth\t980' },
      { page: 2, text: 'Second page text' },
    ]);
  });

  it('poppler answers in the same shape, through the launcher, with the PDF on stdin', async () => {
    const rec = recording();
    const reader = new PopplerReader(new PdfJsReader(), rec.run, {});
    expect(await reader.pageCount(pdf)).toBe(2);
    const text = await reader.read(pdf);
    expect(text).toEqual(await new PdfJsReader().read(pdf));
    expect(rec.calls.map((c) => c.program)).toEqual(['pdfinfo', 'pdftotext']);
    expect(rec.calls.every((c) => c.ok && c.args.includes('fd://0'))).toBe(true);
    // A page range asks pdftotext for just those pages.
    const page2 = await reader.read(pdf, { pages: [2] });
    expect(page2.pages).toEqual([{ page: 2, text: 'Second page text' }]);
    expect(rec.calls.at(-1)!.args).toEqual(expect.arrayContaining(['-f', '2', '-l', '2']));
    // The character cap cuts the same way.
    const cut = await reader.read(pdf, { maxChars: 20 });
    expect(cut).toMatchObject({ truncated: true, pages: [{ page: 1, text: 'Quarterly report\nReg' }] });
  });

  it('DESKHAND_PDF_READER=pdfjs, a password, or poppler missing or failing: pdfjs answers, poppler is not used', async () => {
    const expected = await new PdfJsReader().read(pdf);
    const rec = recording();
    const forced = new PopplerReader(new PdfJsReader(), rec.run, { DESKHAND_PDF_READER: 'pdfjs' });
    expect(await forced.pageCount(pdf)).toBe(2);
    expect(await forced.read(pdf)).toEqual(expected);
    const withPassword = new PopplerReader(new PdfJsReader(), rec.run, {});
    expect(await withPassword.read(pdf, { password: 'unused' })).toEqual(expected);
    expect(rec.calls).toEqual([]);
    // A launcher that cannot start the program (not installed) or a program that fails: pdfjs answers.
    const missing: string[] = [];
    const gone = new PopplerReader(new PdfJsReader(), async (program) => (missing.push(program), null), {});
    expect(await gone.read(pdf)).toEqual(expected);
    expect(missing).toEqual(['pdfinfo']);
  });

  it('turns -layout columns into tab-separated rows', () => {
    expect(layoutRows('   Region            Sales\n\n   North             1200   \n  one word gap here\n')).toBe('Region\tSales\nNorth\t1200\none word gap here');
  });
});
