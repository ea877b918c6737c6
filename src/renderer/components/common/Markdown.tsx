/**
 * Renders model Markdown through react-markdown with GitHub's extensions (remark-gfm: tables, task lists,
 * strikethrough, autolinks) and rehype-sanitize (GitHub's schema: no raw HTML, no script, no `javascript:` links).
 * Images are never fetched: each becomes a placeholder that names it and links to it (opened outside the app).
 * Text is split into chunks at blank lines (outside code fences); each chunk renders once, so while a message streams
 * only its last chunk does work — and a chunk of plain prose, of prose with only simple `code` and **strong**, or a
 * code block whose fence is still open, skips the parser (shared/markdown/plain.ts).
 * In the transcript, the top-level blocks are laid out only near the viewport (`content-visibility: auto`, styles.css):
 * each one gets a size guess from its text and the column's width (`guessBlockSizes`) until it is laid out, and the
 * transcript keeps what the reader is looking at in place when a block above it gets its real height (Transcript.tsx).
 */
import { memo, useLayoutEffect, useMemo, useRef, useState, type ComponentPropsWithoutRef, type ReactNode } from 'react';
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import rehypeSanitize from 'rehype-sanitize';
import { splitChunks } from '../../../shared/markdown/parse';
import { inlineParagraph, openFence, plainParagraph, type InlinePiece } from '../../../shared/markdown/plain';
import { highlightCode } from '../../lib/code-highlight';

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const chunks = useMemo(() => splitChunks(text), [text]);
  const ref = useRef<HTMLDivElement>(null);
  /** How many of the blocks have their guess: the last of them may have grown since, the rest are as they were. */
  const guessed = useRef(0);
  /** Only a transcript's reply skips the layout of blocks out of view (styles.css): only there do they need a guess. */
  const inTranscript = useRef(false);
  useLayoutEffect(() => {
    const md = ref.current;
    if (!md || !md.closest('.vlist-row') || typeof ResizeObserver === 'undefined') return;
    inTranscript.current = true;
    widthObserver ??= new ResizeObserver((entries) => {
      for (const e of entries) if (e.contentRect.width > 0) columnWidth = e.contentRect.width;
    });
    widthObserver.observe(md);
    return () => widthObserver?.unobserve(md);
  }, []);
  useLayoutEffect(() => {
    if (ref.current && inTranscript.current) guessed.current = guessBlockSizes(ref.current, guessed.current);
  }, [chunks]);
  return (
    <div className="md" ref={ref}>
      {chunks.map((c, i) => (
        <Chunk key={i} source={c} />
      ))}
    </div>
  );
});

/** The column's width (px) the last laid-out transcript reply had (a ResizeObserver on each mounted one). */
let columnWidth = 0;
/** Width of an average character and the height of a line, from the page's font (read once). */
let metrics: { char: number; line: number } | null = null;
let widthObserver: ResizeObserver | null = null;

/**
 * Sets each top-level block's size guess (`contain-intrinsic-block-size`), used while the browser skips its layout
 * (out of view): its text's lines at the column's width, so the scrollbar and a jump to the end are about right before
 * the block is ever laid out. Starts at block `from` (the blocks before it keep theirs); returns how many have one.
 * Once laid out, a block keeps its real height (`auto`), whatever the guess was.
 */
export function guessBlockSizes(md: HTMLElement, from: number): number {
  const blocks = md.children;
  if (!metrics) {
    const style = getComputedStyle(md);
    const size = parseFloat(style.fontSize) || 13.5;
    const line = parseFloat(style.lineHeight);
    // An average character of a proportional sans font is about half its size.
    metrics = { char: size * 0.5, line: Number.isFinite(line) ? line : size * 1.5 };
  }
  const perLine = Math.max(20, Math.floor((columnWidth || 680) / metrics.char));
  for (let i = Math.max(0, from - 1); i < blocks.length; i++) {
    const block = blocks[i] as HTMLElement;
    const text = block.textContent ?? '';
    let lines = 0;
    for (const l of text.split('\n')) lines += Math.max(1, Math.ceil(l.length / perLine));
    // A code block has its bar and padding above its lines.
    const extra = block.classList.contains('md-code') ? 42 : 0;
    block.style.containIntrinsicBlockSize = `auto ${Math.round(lines * metrics.line + extra)}px`;
  }
  return blocks.length;
}

const REMARK = [remarkGfm];
/** Raw HTML in a message is shown as the text it is (never parsed), before the sanitizer sees the tree. */
function rehypeRawAsText() {
  return (tree: HastNode) => {
    const walk = (n: HastNode) => {
      for (const child of n.children ?? []) {
        if (child.type === 'raw') child.type = 'text';
        else walk(child);
      }
    };
    walk(tree);
  };
}
const REHYPE = [rehypeRawAsText, rehypeSanitize];

/** Only web and mail links survive; everything else (javascript:, data:, file:, vbscript:) renders as plain text. */
export function safeUrl(url: string): string {
  const u = defaultUrlTransform(url.trim());
  return /^(https?:|mailto:)/i.test(u) ? u : '';
}

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

const textOf = (n: HastNode): string => (n.type === 'text' ? (n.value ?? '') : (n.children ?? []).map(textOf).join(''));

const heading =
  (level: number) =>
  ({ children }: { children?: ReactNode }) => {
    // Message headings sit below the page's own h1/h2: shift them so the outline stays sane.
    const H = `h${Math.min(6, level + 2)}` as 'h3';
    return <H className={`md-h md-h${level}`}>{children}</H>;
  };

const COMPONENTS: Components = {
  h1: heading(1),
  h2: heading(2),
  h3: heading(3),
  h4: heading(4),
  h5: heading(5),
  h6: heading(6),
  a({ href, children }: ComponentPropsWithoutRef<'a'>) {
    if (!href) return <span className="md-link-dropped">{children}</span>;
    return (
      <a href={href} target="_blank" rel="noopener noreferrer" title={href}>
        {children}
      </a>
    );
  },
  img({ src, alt }: ComponentPropsWithoutRef<'img'>) {
    const label = `[image${alt ? `: ${alt}` : ''} — not loaded]`;
    const href = typeof src === 'string' && /^https?:/i.test(src) ? src : null;
    return href ? (
      <a className="md-image" href={href} target="_blank" rel="noopener noreferrer" title={`Image not loaded: ${href}`}>
        {label}
      </a>
    ) : (
      <span className="md-image" title="Image not loaded">
        {label}
      </span>
    );
  },
  table({ children }: ComponentPropsWithoutRef<'table'>) {
    return (
      <div className="md-table-wrap">
        <table>{children}</table>
      </div>
    );
  },
  pre({ node }: { node?: unknown }) {
    const code = ((node as HastNode | undefined)?.children ?? []).find((c) => c.type === 'element' && c.tagName === 'code');
    if (!code) return <pre>{textOf((node as HastNode | undefined) ?? { type: 'root' })}</pre>;
    const cls = code.properties?.className;
    const lang = (Array.isArray(cls) ? cls : [])
      .map(String)
      .find((c) => c.startsWith('language-'))
      ?.slice('language-'.length);
    return <CodeBlock lang={lang ?? ''} code={textOf(code).replace(/\n$/, '')} />;
  },
};

const Chunk = memo(function Chunk({ source }: { source: string }) {
  // Plain prose (most of a streaming reply's last chunk) is the paragraph react-markdown would make, without parsing.
  const plain = plainParagraph(source);
  if (plain !== null) return <p>{plain}</p>;
  // So is prose whose only Markdown is `code` and **strong** in their simplest spellings.
  const pieces = inlineParagraph(source);
  if (pieces) return <InlineParagraph pieces={pieces} />;
  // So is a code block still streaming (its fence not closed yet): the block, without the parser.
  const fence = openFence(source);
  if (fence) return <CodeBlock lang={fence.lang} code={fence.code} streaming />;
  return <ParsedChunk source={source} />;
});

/** The paragraph react-markdown makes of `inlineParagraph`'s pieces. */
export function InlineParagraph({ pieces }: { pieces: InlinePiece[] }) {
  return <p>{pieces.map((p, i) => (p.t === 'text' ? p.v : p.t === 'code' ? <code key={i}>{p.v}</code> : <strong key={i}>{p.v}</strong>))}</p>;
}

/** A chunk through react-markdown (GFM, raw HTML as text, sanitized). */
export function ParsedChunk({ source }: { source: string }) {
  return (
    <ReactMarkdown remarkPlugins={REMARK} rehypePlugins={REHYPE} components={COMPONENTS} urlTransform={safeUrl}>
      {source}
    </ReactMarkdown>
  );
}

/**
 * A code block with its language and a copy button; highlighted when highlight.js knows (or, if small and complete,
 * detects) it. `streaming`: its fence is still open, so no detection yet.
 */
export const CodeBlock = memo(function CodeBlock({ lang, code, streaming = false }: { lang: string; code: string; streaming?: boolean }) {
  const hl = useMemo(() => highlightCode(code, lang, { detect: !streaming }), [code, lang, streaming]);
  const [copied, setCopied] = useState(false);
  return (
    <div className="md-code">
      <div className="md-code-bar">
        <span className="md-code-lang">{lang || hl.language || 'text'}</span>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1200);
            });
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre>
        {/* highlight.js escapes every character of the source it emits; only its own <span class> tags are markup. */}
        {hl.html !== null ? <code className={`language-${hl.language}`} dangerouslySetInnerHTML={{ __html: hl.html }} /> : <code>{code}</code>}
      </pre>
    </div>
  );
});
