/**
 * Markdown → a self-contained HTML page, from the shared parser's tree (never raw HTML from the source: every text is
 * escaped, images are kept only as data: URLs, links keep only http(s)/mailto targets). Used to show, print and
 * publish markdown compositions.
 */
import { parseMarkdown, safeHref, type Block, type Inline } from '../../../shared/markdown/parse';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function inline(nodes: Inline[]): string {
  return nodes
    .map((n) => {
      switch (n.t) {
        case 'text':
          return escapeHtml(n.v);
        case 'code':
          return `<code>${escapeHtml(n.v)}</code>`;
        case 'em':
          return `<em>${inline(n.c)}</em>`;
        case 'strong':
          return `<strong>${inline(n.c)}</strong>`;
        case 'del':
          return `<del>${inline(n.c)}</del>`;
        case 'br':
          return '<br>';
        case 'link': {
          const href = safeHref(n.href);
          return href ? `<a href="${escapeHtml(href)}">${inline(n.c)}</a>` : inline(n.c);
        }
        case 'image':
          return n.src.startsWith('data:image/') ? `<img alt="${escapeHtml(n.alt)}" src="${escapeHtml(n.src)}">` : `[image: ${escapeHtml(n.alt || n.src)}]`;
      }
    })
    .join('');
}

function block(b: Block): string {
  switch (b.t) {
    case 'p':
      return `<p>${inline(b.c)}</p>`;
    case 'h':
      return `<h${b.level}>${inline(b.c)}</h${b.level}>`;
    case 'code':
      return `<pre><code>${escapeHtml(b.v)}</code></pre>`;
    case 'quote':
      return `<blockquote>${b.c.map(block).join('\n')}</blockquote>`;
    case 'hr':
      return '<hr>';
    case 'list': {
      const tag = b.ordered ? 'ol' : 'ul';
      const start = b.ordered && b.start !== 1 ? ` start="${b.start}"` : '';
      return `<${tag}${start}>${b.items.map((item) => `<li>${item.map(block).join('\n')}</li>`).join('')}</${tag}>`;
    }
    case 'table': {
      const al = (i: number) => (b.align[i] ? ` style="text-align:${b.align[i]}"` : '');
      const head = `<tr>${b.head.map((c, i) => `<th${al(i)}>${inline(c)}</th>`).join('')}</tr>`;
      const rows = b.rows.map((r) => `<tr>${r.map((c, i) => `<td${al(i)}>${inline(c)}</td>`).join('')}</tr>`).join('');
      return `<table><thead>${head}</thead><tbody>${rows}</tbody></table>`;
    }
  }
}

const STYLE =
  'body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}' +
  'pre{background:#f4f4f5;padding:.75rem;overflow:auto}code{font-family:ui-monospace,monospace}table{border-collapse:collapse}' +
  'th,td{border:1px solid #ccc;padding:.25rem .5rem}blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1rem;color:#555}img{max-width:100%}';

/** The markdown source as a whole HTML page (UTF-8, inline style only). */
export function markdownPage(source: string, title: string): string {
  const body = parseMarkdown(source).map(block).join('\n');
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`;
}
