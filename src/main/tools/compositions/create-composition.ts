/**
 * create_composition: stores something the agent made for the person to look at (HTML page, SVG, image, markdown
 * document) as a new composition or as the next version of one (`revises`). `mode: static` renders an HTML, SVG or
 * markdown page in Chromium (network closed) to a PNG kept as the composition, for review and export. The person reviews it in the app's
 * compositions panel; their comments, approvals and change requests come back as messages.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { openVerified } from '../../runtime/decision/path-guard';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool } from '../../runtime/tool';
import { COMPOSITION_KINDS, MAX_COMPOSITION_BYTES, markdownPage, type CompositionKind, type CompositionService } from '../../services/compositions/index';
import type { PdfPrinter } from '../../services/pdf/index';

/** The document Chromium renders for a static composition (closed to the network, as for printing). */
function renderable(kind: CompositionKind, source: string, title: string): string {
  if (kind === 'markdown') return markdownPage(source, title);
  if (kind === 'svg') return `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0}</style></head><body>${source.replace(/^\s*<\?xml[^>]*\?>/, '')}</body></html>`;
  return source;
}

/** Width and height of a PNG from its header. */
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

const params = () => z
  .object({
    title: z.string().trim().min(1).max(200).describe('A short title the person sees in the compositions panel.'),
    kind: z.enum(COMPOSITION_KINDS).describe('html (a whole page; scripts run but nothing can load from the network), svg, image (PNG/JPEG/GIF/WebP, from path), or markdown.'),
    content: z.string().optional().describe('The page/document source (html, svg, markdown). Give content or path, not both.'),
    path: z.string().optional().describe('A file to take the composition from instead of content (required for kind image).'),
    revises: z
      .string()
      .regex(/^cmp_[0-9a-f]{10}$/)
      .optional()
      .describe('The id of a composition this one revises: it becomes that composition\'s next version (same kind), linked to the version it revises.'),
    mode: z
      .enum(['static', 'interactive'])
      .optional()
      .describe(
        'interactive (default): the live page, scripts running in the viewer. static: the page (html, svg or markdown) is rendered in Chromium to a PNG, ' +
          'and that image is the composition the person reviews, exports and publishes (its kind is then image).',
      ),
    width: z.number().int().min(100).max(4000).optional().describe('static only: the viewport width in pixels the page is rendered at (default 1280; the whole page height is captured).'),
  })
  .strict();

export const createCreateComposition = (compositions: CompositionService, printer: PdfPrinter) =>
  defineTool({
    name: 'create_composition',
    description:
      'Make a composition for the person to review in the app: an interactive HTML page, an SVG chart, an image or a markdown ' +
      'document, shown beside the conversation rather than as chat text. It must be self-contained: the viewer runs scripts ' +
      'but blocks every network request, remote image or font, form post and navigation (inline everything; images as data: ' +
      'URLs). To revise after the person comments, call it again with `revises` set to the composition id: a new version is ' +
      'stored and the person can compare them. `mode: "static"` renders the page to a PNG (Chromium) and keeps that image instead of ' +
      'the live page. Returns the id and version. Publishing needs the person\'s approval of a version.',
    params,
    // It writes only into Deskhand's own store (a new composition or version the person reviews); reading `path`
    // is a declared read the containment inspector checks like any other.
    risk: 'read-only',
    disclosure: 'internal',
    effects: (args) => (args.path ? { paths: { read: [args.path] } } : {}),
    presentation: { title: 'Make a composition', icon: 'file', summary: (args) => `${args.title} (${args.kind}${args.mode === 'static' ? ', static' : ''}${args.revises ? `, revises ${args.revises}` : ''})` },
    async execute(args, ctx) {
      if ((args.content === undefined) === (args.path === undefined)) throw new ToolError('Give exactly one of content or path.');
      let bytes: Buffer;
      if (args.path !== undefined) {
        // Opened where the approval engine checked it (the declared read), so a path swapped since is refused.
        const abs = resolvePath(args.path, ctx.state.cwd);
        const opened = await openVerified(abs, ctx.checkedPaths?.get(abs)?.resolved).catch((err: unknown) => {
          if (err instanceof ToolError) throw err;
          throw new ToolError(`${args.path} is not a file (${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}).`);
        });
        try {
          const st = opened.stat;
          if (!st.isFile()) throw new ToolError(`${args.path} is not a file.`);
          if (st.size > MAX_COMPOSITION_BYTES) throw new ToolError(`${args.path} is ${st.size} bytes; a composition may be at most ${MAX_COMPOSITION_BYTES}.`);
          bytes = await readFile(opened.fh);
        } finally {
          await opened.fh.close();
        }
      } else {
        if (args.kind === 'image') throw new ToolError('An image composition is taken from a file: give path (PNG, JPEG, GIF or WebP).');
        bytes = Buffer.from(args.content!, 'utf8');
      }
      let kind: CompositionKind = args.kind;
      let rendered = '';
      if (args.mode === 'static' && args.kind !== 'image') {
        try {
          bytes = await printer.snapshot(renderable(args.kind, bytes.toString('utf8'), args.title), { ...(args.width ? { width: args.width } : {}), fullPage: true }, ctx.signal);
        } catch (err) {
          throw new ToolError(`Could not render the ${args.kind} to an image: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        }
        if (bytes.length > MAX_COMPOSITION_BYTES) throw new ToolError(`The rendered image is ${bytes.length} bytes; a composition may be at most ${MAX_COMPOSITION_BYTES}. Render a smaller page.`);
        const size = pngSize(bytes);
        rendered = ` rendered from ${args.kind} to a ${size.width}×${size.height} PNG,`;
        kind = 'image';
      } else if (args.width !== undefined) throw new ToolError('width applies only to mode "static" of an html, svg or markdown page (an interactive page fills the viewer; an image keeps its size).');
      if (args.mode === 'interactive' && args.kind === 'image') throw new ToolError('An image is static: omit mode or give mode "static".');
      try {
        const { detail, version } = compositions.create({
          conversationId: ctx.conversationId,
          title: args.title,
          kind,
          bytes,
          ...(args.revises ? { revises: args.revises } : {}),
        });
        const linked = version.revises ? `, revising version ${version.revises}` : '';
        return {
          output:
            `Composition ${detail.id} version ${version.version}${linked} saved (${kind},${rendered} ${version.bytes} bytes). ` +
            'The person sees it in the Compositions panel; their comments, approval or change requests come back as messages.',
        };
      } catch (err) {
        if (DeskhandError.isInstance(err)) throw new ToolError(err.message);
        throw err;
      }
    },
  });
