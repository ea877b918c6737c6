/**
 * The renderer's style sheets stay well formed: every block closed, no rule nested inside another by a lost brace
 * (plain CSS nesting would silently scope every later rule under the unclosed selector — this happened twice in
 * merges). Media/supports queries are the only blocks that may contain rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..', 'src', 'renderer');

function cssFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? cssFiles(join(dir, e.name)) : e.name.endsWith('.css') ? [join(dir, e.name)] : []));
}

/** The problems of one sheet: unbalanced braces, or a rule opened inside a rule. */
export function cssProblems(text: string): string[] {
  const problems: string[] = [];
  const stack: { at: number; group: boolean }[] = [];
  const src = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  let line = 1;
  let selector = '';
  for (const ch of src) {
    if (ch === '\n') line++;
    if (ch === '{') {
      const group = /^\s*@(media|supports|container|layer|keyframes)/.test(selector);
      const parent = stack[stack.length - 1];
      if (parent && !parent.group) problems.push(`line ${line}: "${selector.trim().slice(0, 60)}" opens inside the rule of line ${parent.at}`);
      stack.push({ at: line, group: group || (parent?.group === true && /^\s*(from|to|\d+%)/.test(selector)) });
      selector = '';
    } else if (ch === '}') {
      if (!stack.pop()) problems.push(`line ${line}: a } closes nothing`);
      selector = '';
    } else if (ch === ';') selector = '';
    else selector += ch;
  }
  for (const open of stack) problems.push(`line ${open.at}: a block is never closed`);
  return problems;
}

it('every renderer style sheet has balanced blocks and no rule nested by a lost brace', () => {
  const files = cssFiles(ROOT);
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) expect({ file: f, problems: cssProblems(readFileSync(f, 'utf8')) }).toEqual({ file: f, problems: [] });
});

it('the check finds a lost brace', () => {
  expect(cssProblems('.a { color: red;\n.b { color: blue; }\n')).toHaveLength(2);
  expect(cssProblems('@media (max-width: 800px) { .a { color: red; } }\n.b { x: y; }')).toEqual([]);
});
