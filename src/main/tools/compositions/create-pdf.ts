/**
 * create_pdf: prints a composition, HTML or markdown to a PDF through Chromium (fonts embedded by its PDF backend),
 * and writes it where the approval engine checked, like any write. Nothing the page asks for is loaded.
 */
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool } from '../../runtime/tool';
import { markdownPage, printableHtml, type CompositionService } from '../../services/compositions/index';
import type { PdfPrinter } from '../../services/pdf/index';
import { writeChecked } from './write-out';

const params = () => z
  .object({
    composition: z.string().regex(/^cmp_[0-9a-f]{10}$/).optional().describe('A composition id to print (its latest version, or `version`).'),
    version: z.number().int().positive().optional().describe('The composition version to print (default: the latest).'),
    html: z.string().optional().describe('A whole HTML document to print (self-contained: inline styles, data: images).'),
    markdown: z.string().optional().describe('A markdown document to print.'),
    path: z.string().min(1).describe('Where to write the PDF (relative to the working directory, absolute, or ~).'),
    page: z
      .object({
        size: z.string().optional().describe('A4 (default), Letter, Legal, A3, A5, Tabloid, or WIDTHxHEIGHT like 210mmx297mm.'),
        margins: z.string().optional().describe('One CSS length for every side, e.g. 15mm (default) or 0.5in.'),
        landscape: z.boolean().optional(),
      })
      .strict()
      .optional()
      .describe('Paper size, margins and orientation (default A4 portrait, 15 mm margins).'),
  })
  .strict();

export const createCreatePdf = (printer: PdfPrinter, compositions: CompositionService) =>
  defineTool({
    name: 'create_pdf',
    facts: { writes: true, loadsWith: 'pdf' },
    description:
      'Print a PDF from a composition, an HTML document or markdown, through Chromium: text and numbers are exact and fonts are ' +
      'embedded. Give exactly one of composition, html or markdown, and the path to write. The page must be self-contained ' +
      '(nothing is fetched while printing). The person approves the write like any file write.',
    params,
    risk: 'high-risk',
    disclosure: 'internal',
    effects: (args) => ({ paths: { write: [args.path] } }),
    presentation: { title: 'Print a PDF', icon: 'file', summary: (args) => args.path },
    timeoutMs: 120_000,
    async execute(args, ctx) {
      const given = [args.composition, args.html, args.markdown].filter((x) => x !== undefined).length;
      if (given !== 1) throw new ToolError('Give exactly one of composition, html or markdown.');
      if (!/\.pdf$/i.test(args.path)) throw new ToolError(`${args.path} does not end in .pdf; name the PDF file to write.`);
      let html: string;
      if (args.composition) {
        const c = compositions.get(args.composition);
        if (!c) throw new ToolError(`No composition ${args.composition}.`);
        const version = args.version ?? c.latestVersion;
        const v = c.versions.find((x) => x.version === version);
        if (!v) throw new ToolError(`Composition ${c.id} has no version ${version} (it has 1–${c.latestVersion}).`);
        html = printableHtml(c.kind, c.title, v.mime, compositions.read(c.id, version));
      } else html = args.html ?? markdownPage(args.markdown!, 'Document');
      const setup = { ...(args.page?.size ? { size: args.page.size } : {}), ...(args.page?.margins ? { margins: args.page.margins } : {}), landscape: !!args.page?.landscape };
      let pdf: Buffer;
      try {
        pdf = await printer.print(html, setup, ctx.signal);
      } catch (err) {
        throw new ToolError(DeskhandError.isInstance(err) ? err.message : `Printing failed: ${(err as Error).message}`);
      }
      const abs = resolvePath(args.path, ctx.state.cwd);
      await writeChecked(abs, pdf, ctx);
      return { output: `Wrote ${args.path}: a ${pdf.length}-byte PDF (${setup.size ?? 'A4'}${setup.landscape ? ', landscape' : ''}).` };
    },
  });
