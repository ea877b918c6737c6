/**
 * Renders model Markdown as React elements (no HTML strings). Text is split into chunks at blank lines; each chunk is
 * parsed and rendered once, so while a message streams only its last chunk does work. Images are never fetched.
 */
import { memo, useMemo, useState, type ReactNode } from 'react';
import { parseMarkdown, splitChunks, type Block, type Inline } from '../../shared/markdown/parse';
import { highlight } from '../../shared/markdown/highlight';

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const chunks = useMemo(() => splitChunks(text), [text]);
  return (
    <div className="md">
      {chunks.map((c, i) => (
        <Chunk key={i} source={c} />
      ))}
    </div>
  );
});

const Chunk = memo(function Chunk({ source }: { source: string }) {
  const blocks = useMemo(() => parseMarkdown(source), [source]);
  return <>{blocks.map((b, i) => renderBlock(b, i))}</>;
});

function renderBlock(b: Block, key: number): ReactNode {
  switch (b.t) {
    case 'p':
      return <p key={key}>{renderInlines(b.c)}</p>;
    case 'h': {
      // Message headings sit below the page's own h1/h2: shift them so the outline stays sane.
      const level = Math.min(6, b.level + 2);
      const H = `h${level}` as 'h3';
      return (
        <H key={key} className={`md-h md-h${b.level}`}>
          {renderInlines(b.c)}
        </H>
      );
    }
    case 'code':
      return <CodeBlock key={key} lang={b.lang} code={b.v} />;
    case 'quote':
      return <blockquote key={key}>{b.c.map((c, i) => renderBlock(c, i))}</blockquote>;
    case 'list': {
      const items = b.items.map((item, i) => <li key={i}>{item.length === 1 && item[0]!.t === 'p' ? renderInlines(item[0]!.c) : item.map((c, j) => renderBlock(c, j))}</li>);
      return b.ordered ? (
        <ol key={key} start={b.start === 1 ? undefined : b.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table':
      return (
        <div key={key} className="md-table-wrap">
          <table>
            <thead>
              <tr>
                {b.head.map((c, i) => (
                  <th key={i} style={{ textAlign: b.align[i] ?? undefined }}>
                    {renderInlines(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, i) => (
                    <td key={i} style={{ textAlign: b.align[i] ?? undefined }}>
                      {renderInlines(c)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case 'hr':
      return <hr key={key} />;
  }
}

function renderInlines(nodes: Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.t) {
      case 'text':
        return n.v;
      case 'code':
        return <code key={i}>{n.v}</code>;
      case 'em':
        return <em key={i}>{renderInlines(n.c)}</em>;
      case 'strong':
        return <strong key={i}>{renderInlines(n.c)}</strong>;
      case 'del':
        return <del key={i}>{renderInlines(n.c)}</del>;
      case 'link':
        return (
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer" title={n.href}>
            {renderInlines(n.c)}
          </a>
        );
      case 'image':
        return (
          <span key={i} className="md-image" title={`Image not loaded: ${n.src}`}>
            [image{n.alt ? `: ${n.alt}` : ''} — not loaded]
          </span>
        );
      case 'br':
        return <br key={i} />;
    }
  });
}

const CodeBlock = memo(function CodeBlock({ lang, code }: { lang: string; code: string }) {
  const tokens = useMemo(() => highlight(code, lang), [code, lang]);
  const [copied, setCopied] = useState(false);
  return (
    <div className="md-code">
      <div className="md-code-bar">
        <span className="md-code-lang">{lang || 'text'}</span>
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
        <code>
          {tokens.map((t, i) =>
            t.k === 'plain' ? (
              t.v
            ) : (
              <span key={i} className={`tok-${t.k}`}>
                {t.v}
              </span>
            ),
          )}
        </code>
      </pre>
    </div>
  );
});
