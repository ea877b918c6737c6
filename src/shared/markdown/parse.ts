/**
 * A small Markdown parser for model output: headings, paragraphs, emphasis, code (fenced + inline), lists, quotes,
 * tables, rules, links. It builds a tree that React renders as elements — never HTML strings — so model text cannot
 * inject markup, and images are never loaded (they become a labelled placeholder with their URL).
 */

export type Inline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'em'; c: Inline[] }
  | { t: 'strong'; c: Inline[] }
  | { t: 'del'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] }
  | { t: 'image'; alt: string; src: string }
  | { t: 'br' };

export type Block =
  | { t: 'p'; c: Inline[] }
  | { t: 'h'; level: number; c: Inline[] }
  | { t: 'code'; lang: string; v: string; open: boolean }
  | { t: 'quote'; c: Block[] }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'table'; head: Inline[][]; align: ('left' | 'right' | 'center' | null)[]; rows: Inline[][][] }
  | { t: 'hr' };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const HR = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const BULLET = /^( {0,3})([-*+])\s+(.*)$/;
const ORDERED = /^( {0,3})(\d{1,9})[.)]\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

/**
 * Splits text into top-level chunks at blank lines outside code fences. While a message streams only the last
 * chunk changes, so the renderer re-parses and re-renders only that one.
 */
export function splitChunks(text: string): string[] {
  const lines = text.split('\n');
  const chunks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const f = FENCE.exec(line);
    if (fence) {
      current.push(line);
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && !f[2]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      current.push(line);
      continue;
    }
    if (line.trim() === '') {
      if (current.length) chunks.push(current.join('\n'));
      current = [];
      continue;
    }
    current.push(line);
  }
  if (current.length) chunks.push(current.join('\n'));
  return chunks;
}

export function parseMarkdown(text: string): Block[] {
  return parseBlocks(text.replace(/\r\n?/g, '\n').split('\n'));
}

function parseBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      let open = true;
      while (i < lines.length) {
        const close = FENCE.exec(lines[i]!);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length && !close[2]) {
          open = false;
          i++;
          break;
        }
        body.push(lines[i]!);
        i++;
      }
      blocks.push({ t: 'code', lang: fence[2] ?? '', v: body.join('\n'), open });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: heading[1]!.length, c: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }
    if (HR.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && (QUOTE.test(lines[i]!) || body.length)) {
        const m = QUOTE.exec(lines[i]!);
        body.push(m ? m[1]! : lines[i]!);
        i++;
      }
      blocks.push({ t: 'quote', c: parseBlocks(body) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = bullet ? null : ORDERED.exec(line);
    if (bullet || ordered) {
      const isOrdered = !!ordered;
      const items: string[][] = [];
      let start = ordered ? Number(ordered[2]) : 1;
      if (!Number.isFinite(start)) start = 1;
      while (i < lines.length) {
        const l = lines[i]!;
        const m = isOrdered ? ORDERED.exec(l) : BULLET.exec(l);
        if (m) {
          items.push([m[3]!]);
          i++;
          continue;
        }
        if (l.trim() === '') {
          // A blank line ends the list unless the next line continues it (indented or another item).
          const next = lines[i + 1];
          if (next !== undefined && (/^\s{2,}\S/.test(next) || (isOrdered ? ORDERED : BULLET).test(next))) {
            items[items.length - 1]?.push('');
            i++;
            continue;
          }
          break;
        }
        if (/^\s{2,}/.test(l) || !startsBlock(l)) {
          items[items.length - 1]?.push(l.replace(/^\s{1,4}/, ''));
          i++;
          continue;
        }
        break;
      }
      blocks.push({ t: 'list', ordered: isOrdered, start, items: items.map((it) => parseBlocks(it)) });
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      const head = splitRow(line);
      const align = splitRow(lines[i + 1]!).map((c) => {
        const l = c.startsWith(':');
        const r = c.endsWith(':');
        return l && r ? 'center' : r ? 'right' : l ? 'left' : null;
      });
      i += 2;
      const rows: Inline[][][] = [];
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') {
        rows.push(splitRow(lines[i]!).map(parseInline));
        i++;
      }
      blocks.push({ t: 'table', head: head.map(parseInline), align, rows });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && (para.length === 0 || !startsBlock(lines[i]!))) {
      para.push(lines[i]!);
      i++;
    }
    blocks.push({ t: 'p', c: parseInline(para.join('\n')) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || HR.test(line) || QUOTE.test(line) || BULLET.test(line) || ORDERED.test(line);
}

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (ch === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  cells.push(cur.trim());
  return cells;
}

const ESCAPABLE = new Set('\\`*_{}[]()#+-.!|~<>'.split(''));

/** Only http(s) and mailto links are kept; anything else (javascript:, file:, data:) becomes plain text. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  if (/^https?:\/\//i.test(h) || /^mailto:/i.test(h)) return h;
  return null;
}

export function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ t: 'text', v: text });
    text = '';
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\' && i + 1 < src.length) {
      const next = src[i + 1]!;
      if (next === '\n') {
        flush();
        out.push({ t: 'br' });
        i += 2;
        continue;
      }
      if (ESCAPABLE.has(next)) {
        text += next;
        i += 2;
        continue;
      }
    }
    if (ch === '`') {
      let n = 1;
      while (src[i + n] === '`') n++;
      const fence = '`'.repeat(n);
      const end = src.indexOf(fence, i + n);
      if (end !== -1) {
        flush();
        let code = src.slice(i + n, end).replace(/\n/g, ' ');
        if (/^ .* $/.test(code)) code = code.slice(1, -1);
        out.push({ t: 'code', v: code });
        i = end + n;
        continue;
      }
      text += fence;
      i += n;
      continue;
    }
    if (ch === '!' && src[i + 1] === '[') {
      const link = parseLinkAt(src, i + 1);
      if (link) {
        flush();
        out.push({ t: 'image', alt: link.label, src: link.href });
        i = link.end;
        continue;
      }
    }
    if (ch === '[') {
      const link = parseLinkAt(src, i);
      if (link) {
        flush();
        const href = safeHref(link.href);
        if (href) out.push({ t: 'link', href, c: parseInline(link.label) });
        else out.push(...parseInline(link.label));
        i = link.end;
        continue;
      }
    }
    if (ch === '<') {
      const m = /^<(https?:\/\/[^\s<>]+)>/i.exec(src.slice(i));
      if (m) {
        flush();
        out.push({ t: 'link', href: m[1]!, c: [{ t: 'text', v: m[1]! }] });
        i += m[0].length;
        continue;
      }
    }
    if ((ch === 'h' || ch === 'H') && (i === 0 || /[\s(]/.test(src[i - 1]!))) {
      const m = /^https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"]/i.exec(src.slice(i));
      if (m) {
        flush();
        out.push({ t: 'link', href: m[0], c: [{ t: 'text', v: m[0] }] });
        i += m[0].length;
        continue;
      }
    }
    if (ch === '~' && src[i + 1] === '~') {
      const end = src.indexOf('~~', i + 2);
      if (end > i + 2) {
        flush();
        out.push({ t: 'del', c: parseInline(src.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if (ch === '*' || ch === '_') {
      const double = src[i + 1] === ch;
      const marker = double ? ch + ch : ch;
      const prev = i > 0 ? src[i - 1]! : ' ';
      const after = src[i + marker.length];
      // Intraword underscores (snake_case) are not emphasis; a marker must be followed by non-space.
      const canOpen = after !== undefined && !/\s/.test(after) && !(ch === '_' && /[A-Za-z0-9]/.test(prev));
      if (canOpen) {
        const end = findClose(src, i + marker.length, marker);
        if (end !== -1) {
          flush();
          const inner = parseInline(src.slice(i + marker.length, end));
          out.push(double ? { t: 'strong', c: inner } : { t: 'em', c: inner });
          i = end + marker.length;
          continue;
        }
      }
      text += marker;
      i += marker.length;
      continue;
    }
    if (ch === '\n') {
      // Two trailing spaces make a hard break; a plain newline is a soft break (a space).
      if (text.endsWith('  ')) {
        text = text.replace(/ +$/, '');
        flush();
        out.push({ t: 'br' });
      } else text += '\n';
      i++;
      continue;
    }
    text += ch;
    i++;
  }
  flush();
  return out;
}

function findClose(src: string, from: number, marker: string): number {
  let i = from;
  while (i < src.length) {
    const at = src.indexOf(marker, i);
    if (at === -1) return -1;
    const before = src[at - 1];
    const after = src[at + marker.length];
    const intraword = marker[0] === '_' && after !== undefined && /[A-Za-z0-9]/.test(after);
    if (at > from && before !== undefined && !/\s/.test(before) && !intraword && (marker.length === 2 || src[at + 1] !== marker[0] || src[at - 1] === marker[0])) {
      return at;
    }
    i = at + marker.length;
  }
  return -1;
}

function parseLinkAt(src: string, open: number): { label: string; href: string; end: number } | null {
  let depth = 0;
  let j = open;
  for (; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']') {
      depth--;
      if (depth === 0) break;
    } else if (c === '\n' && src[j + 1] === '\n') return null;
  }
  if (j >= src.length || src[j + 1] !== '(') return null;
  // The destination may hold balanced parentheses: https://en.wikipedia.org/wiki/Foo_(bar)
  let close = -1;
  let parens = 0;
  for (let k = j + 2; k < src.length; k++) {
    const c = src[k];
    if (c === '\n') return null;
    if (c === '(') parens++;
    else if (c === ')') {
      if (parens === 0) {
        close = k;
        break;
      }
      parens--;
    }
  }
  if (close === -1) return null;
  const target = src.slice(j + 2, close).trim();
  const href = target.split(/\s+/)[0]?.replace(/^<|>$/g, '') ?? '';
  return { label: src.slice(open + 1, j), href, end: close + 1 };
}
