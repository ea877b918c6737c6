/**
 * A small glob matcher for names and relative paths (`*`, `?`, `**`, `[abc]`, `[!abc]`, `{a,b}` with nesting), used by
 * `ls` filtering, `find` for directories, and the sensitive-file rules. Ripgrep does the heavy file matching itself.
 */

/** Expands `{a,b}` alternatives (nested braces allowed): `*.{ts,tsx}` → [`*.ts`, `*.tsx`]. Capped at 256 results. */
export function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (!open) return [pattern];
  const { start, end, parts } = open;
  const head = pattern.slice(0, start);
  const tail = pattern.slice(end + 1);
  const out: string[] = [];
  for (const part of parts) {
    for (const expanded of expandBraces(head + part + tail)) {
      out.push(expanded);
      if (out.length >= 256) return out;
    }
  }
  return out;
}

function findBrace(p: string): { start: number; end: number; parts: string[] } | null {
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c !== '{') continue;
    let depth = 0;
    const parts: string[] = [];
    let partStart = i + 1;
    for (let j = i; j < p.length; j++) {
      const d = p[j];
      if (d === '\\') {
        j++;
        continue;
      }
      if (d === '{') depth++;
      else if (d === '}') {
        depth--;
        if (depth === 0) {
          parts.push(p.slice(partStart, j));
          if (parts.length < 2) break; // `{x}` is literal
          return { start: i, end: j, parts };
        }
      } else if (d === ',' && depth === 1) {
        parts.push(p.slice(partStart, j));
        partStart = j + 1;
      }
    }
  }
  return null;
}

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** One brace-free glob → regex source. `*` and `?` never cross `/`; `**` as a whole segment crosses any depth. */
function globSource(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atSegStart = i === 0 || glob[i - 1] === '/';
        let j = i;
        while (glob[j] === '*') j++;
        const atSegEnd = j === glob.length || glob[j] === '/';
        if (atSegStart && atSegEnd) {
          if (j === glob.length) re += '.*';
          else {
            re += '(?:.*/)?';
            j++; // swallow the slash
          }
          i = j - 1;
          continue;
        }
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        re += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else if (c === '\\' && i + 1 < glob.length) {
      re += escapeRe(glob[i + 1] as string);
      i++;
    } else re += escapeRe(c);
  }
  return re;
}

export function globToRegExp(glob: string, opts: { caseInsensitive?: boolean } = {}): RegExp {
  const alternatives = expandBraces(glob).map(globSource);
  return new RegExp(`^(?:${alternatives.join('|')})$`, opts.caseInsensitive ? 'i' : '');
}

/**
 * Matches like ripgrep/gitignore globs: a pattern without `/` matches the last path segment at any depth; a pattern
 * with `/` matches the whole relative path (a leading `/` or `./` anchors at the search root).
 */
export function makePathMatcher(glob: string, opts: { caseInsensitive?: boolean } = {}): (relPath: string) => boolean {
  let g = glob.replace(/\\/g, '/');
  if (g.startsWith('./')) g = g.slice(2);
  else if (g.startsWith('/')) g = g.slice(1);
  if (g.endsWith('/') && g.length > 1) g = g.slice(0, -1);
  const re = globToRegExp(g, opts);
  const hasSlash = expandBraces(g).some((p) => p.includes('/'));
  if (hasSlash) return (rel) => re.test(rel);
  return (rel) => {
    const slash = rel.lastIndexOf('/');
    return re.test(slash === -1 ? rel : rel.slice(slash + 1));
  };
}
