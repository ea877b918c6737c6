/**
 * The page outline the model reads, made from Playwright's AI-mode aria snapshot (`page.ariaSnapshot({mode: 'ai'})`,
 * which numbers elements `[ref=e12]` and descends into iframes as `f1e3`): every element a tool can act on is shown as
 * `[e12] button "Sign in"`, containers without a name lose their ref and collapse, long text is cut, and the whole
 * outline is capped. `diffOutlines` is what `browser_act` returns: the lines that went and came.
 */

/** Roles that carry no action of their own: their ref is dropped unless the page marks them clickable. */
const PASSIVE_ROLES = new Set([
  'generic',
  'paragraph',
  'text',
  'list',
  'listitem',
  'group',
  'region',
  'main',
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'article',
  'section',
  'document',
  'img',
  'figure',
  'table',
  'rowgroup',
  'row',
  'cell',
  'columnheader',
  'rowheader',
  'heading',
  'strong',
  'emphasis',
  'code',
  'blockquote',
  'separator',
  'status',
  'note',
  'term',
  'definition',
  'time',
  'superscript',
  'subscript',
  'insertion',
  'deletion',
  'iframe',
]);

/** Attributes kept in the outline; the rest (`[active]`, `[cursor=pointer]`, boxes) are dropped. */
const KEPT_ATTRS = /^(checked|checked=mixed|disabled|expanded|selected|pressed|level=\d+|required|invalid)$/;

export const OUTLINE_MAX_CHARS = 40_000;
const TEXT_LINE_MAX = 300;

export interface Outline {
  /** The outline, lines of `  [e12] role "name": text`. */
  text: string;
  /** Every ref shown: what browser_act accepts until the next snapshot. */
  refs: Set<string>;
  /** Characters left out by the cap. */
  cut: number;
}

const LINE = /^(\s*)- (.*)$/;
/** The attributes Playwright appends (` [ref=e5]`, ` [cursor=pointer]`…); brackets in names are left alone. */
const ATTR = / \[(ref=(?:f\d+)?e\d+|cursor=\w+|active|box=[\d.,-]+|checked(?:=mixed)?|disabled|expanded|selected|pressed(?:=mixed)?|level=\d+|required|invalid)\]/g;

/** Turns Playwright's AI snapshot into the model's outline. */
export function formatOutline(raw: string, maxChars = OUTLINE_MAX_CHARS): Outline {
  const out: string[] = [];
  const lineRefs: (string | null)[] = [];
  // Indent levels dropped for collapsed containers: a child line is moved left by as much as its collapsed parents.
  const collapsed: number[] = [];
  for (const line of raw.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const indent = m[1]!.length;
    while (collapsed.length && collapsed[collapsed.length - 1]! >= indent) collapsed.pop();
    let body = m[2]!;
    // YAML quotes a whole line whose name holds ": " (`- 'cell "a: b" [ref=e3]'`, `- 'row "a: b"':` with children).
    const quoted = body.charCodeAt(0) === 39 /* ' */ ? /^'((?:[^']|'')*)'(:?)(.*)$/.exec(body) : null;
    if (quoted) body = `${quoted[1]!.replace(/''/g, "'")}${quoted[2]}${quoted[3]}`;
    if (body.startsWith('/url:')) {
      out.push(`${pad(indent, collapsed)}url: ${truncate(unquote(body.slice(5).trim()), 200)}`);
      lineRefs.push(null);
      continue;
    }
    if (body.startsWith('/')) continue; // other metadata lines (/placeholder…)
    let ref: string | null = null;
    let clickable = false;
    const kept: string[] = [];
    if (body.includes(' [')) {
      for (const m of body.matchAll(ATTR)) {
        const attr = m[1]!;
        if (attr.charCodeAt(0) === 114 /* r */ && attr.startsWith('ref=')) ref = attr.slice(4);
        else if (attr === 'cursor=pointer') clickable = true;
        else if (KEPT_ATTRS.test(attr)) kept.push(`[${attr}]`);
      }
      body = body.replace(ATTR, '');
    }
    const colon = body.match(/^([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(:?)(?: (.*))?$/);
    const role = colon?.[1] ?? body.split(/[ :]/)[0]!;
    const name = colon?.[2];
    const hasChildren = colon?.[3] === ':' && !colon?.[4];
    const text = colon?.[4];
    const actionable = !PASSIVE_ROLES.has(role) || clickable;
    if (role === 'generic' && !name && !text && !actionable && hasChildren) {
      collapsed.push(indent);
      continue;
    }
    if (role === 'generic' && !name && !text && !actionable) continue;
    let shown = role === 'text' ? '' : role;
    if (name !== undefined && name !== '') shown += ` "${truncate(name, 200)}"`;
    if (kept.length) shown += ` ${kept.join(' ')}`;
    if (text !== undefined) shown += `${shown ? ': ' : ''}${truncate(unquote(text), TEXT_LINE_MAX)}`;
    const shownRef = actionable && ref ? (ref as string) : null;
    if (shownRef) shown = `[${shownRef}] ${shown}`;
    out.push(`${pad(indent, collapsed)}${shown.trim()}`);
    lineRefs.push(shownRef);
  }
  // Whole lines up to the cap; refs of lines cut off are not offered (the model never saw them).
  const refs = new Set<string>();
  let size = 0;
  let n = 0;
  for (; n < out.length; n++) {
    const next = size + out[n]!.length + (n ? 1 : 0);
    if (next > maxChars) break;
    size = next;
    const r = lineRefs[n];
    if (r) refs.add(r);
  }
  let text = out.slice(0, n).join('\n');
  let cut = 0;
  if (n < out.length) {
    cut = out.slice(n).reduce((a, l) => a + l.length + 1, 0);
    text += `\n[… ${cut} more characters of this page not shown]`;
  }
  return { text, refs, cut };
}

function pad(indent: number, collapsed: number[]): string {
  return ' '.repeat(Math.max(0, indent - collapsed.length * 2));
}

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function unquote(s: string): string {
  return /^".*"$/.test(s) ? s.slice(1, -1).replace(/\\"/g, '"') : s;
}

export const DIFF_MAX_LINES = 60;

/**
 * The lines that went (`- `) and came (`+ `) between two outlines, compared without indentation, in page order.
 * Null when nothing changed.
 */
export function diffOutlines(before: string, after: string, maxLines = DIFF_MAX_LINES): { text: string; changed: number } | null {
  const count = (lines: string[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const l of lines) m.set(l, (m.get(l) ?? 0) + 1);
    return m;
  };
  const a = before.split('\n').map((l) => l.trim()).filter(Boolean);
  const b = after.split('\n').map((l) => l.trim()).filter(Boolean);
  const inA = count(a);
  const inB = count(b);
  const removed: string[] = [];
  const added: string[] = [];
  const seenA = new Map<string, number>();
  for (const l of a) {
    const n = (seenA.get(l) ?? 0) + 1;
    seenA.set(l, n);
    if (n > (inB.get(l) ?? 0)) removed.push(`- ${l}`);
  }
  const seenB = new Map<string, number>();
  for (const l of b) {
    const n = (seenB.get(l) ?? 0) + 1;
    seenB.set(l, n);
    if (n > (inA.get(l) ?? 0)) added.push(`+ ${l}`);
  }
  const all = [...removed, ...added];
  if (!all.length) return null;
  const shown = all.slice(0, maxLines);
  if (all.length > maxLines) shown.push(`[… ${all.length - maxLines} more changed lines; call browser_snapshot for the whole page]`);
  return { text: shown.join('\n'), changed: all.length };
}
