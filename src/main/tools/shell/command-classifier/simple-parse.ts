/**
 * The parse of the plainest commands without the bash parser: one program and its arguments, every word made only of
 * `A-Z a-z 0-9 _ . / : @ % + , = -`, separated by single spaces (`git status`, `ls -la src`, `npm run build`). For such
 * a command there is nothing for bash to expand, quote, redirect or combine, and the tree is built here with the
 * same node types, fields (in mvdan/sh's order) and byte offsets the parser gives, so the walk (walker.ts) reads it
 * exactly as it reads the parser's — test/tools/shell/simple-parse.test.ts compares the two, classification for
 * classification. Anything else (a quote, `$`, a glob, an operator, an assignment or a reserved or declaring word
 * first, two spaces, a tab, a non-ASCII character…) returns null and goes to mvdan-sh (parser-load.ts), whose start
 * is what this saves a short CLI call.
 */
/** A node as the walk reads it (sh.ts ShNode; declared here too, since sh.ts imports this file). */
type SimpleNode = Readonly<Record<string, unknown>>;
interface Pos {
  Offset(): number;
  IsValid(): boolean;
}

/** Node types of the trees built here (sh.ts nodeType reads it before asking the parser). */
export const SIMPLE_NODE_TYPE = new WeakMap<object, string>();

const WORDS = /^[A-Za-z0-9_./:@%+,=-]+( [A-Za-z0-9_./:@%+,=-]+)*$/;
/**
 * Words bash (mvdan/sh's bash variant) reads as syntax, not a program, when they come first: reserved words, and the
 * declaring and arithmetic builtins it parses as clauses of their own.
 */
const NOT_A_PROGRAM = new Set([
  'if', 'then', 'elif', 'else', 'fi', 'for', 'in', 'do', 'done', 'while', 'until', 'case', 'esac', 'select', 'function',
  'time', 'coproc', 'declare', 'local', 'export', 'readonly', 'typeset', 'nameref', 'let',
]);

let enabled = true;
/** Turns the short path off (tests compare both paths). */
export function setSimpleParse(on: boolean): void {
  enabled = on;
}

function pos(offset: number, valid = true): Pos {
  return { Offset: () => offset, IsValid: () => valid };
}

function node(type: string, from: number, to: number, fields: Record<string, unknown>): SimpleNode {
  const n: SimpleNode = { Pos: () => pos(from), End: () => pos(to), ...fields };
  SIMPLE_NODE_TYPE.set(n, type);
  return n;
}

/** The tree of `src` when it is one plain command (see above), else null. */
export function simpleParse(src: string): SimpleNode | null {
  if (!enabled || !WORDS.test(src)) return null;
  const words = src.split(' ');
  const first = words[0]!;
  if (first.includes('=') || NOT_A_PROGRAM.has(first)) return null;
  let offset = 0;
  const args = words.map((w) => {
    const from = offset;
    const to = from + w.length;
    offset = to + 1;
    const lit = node('Lit', from, to, { ValuePos: pos(from), ValueEnd: pos(to), Value: w });
    return node('Word', from, to, { Parts: [lit] });
  });
  const end = src.length;
  const call = node('CallExpr', 0, end, { Assigns: [], Args: args });
  const stmt = node('Stmt', 0, end, { Comments: [], Cmd: call, Position: pos(0), Semicolon: pos(0, false), Negated: false, Background: false, Coprocess: false, Redirs: [] });
  return node('File', 0, end, { Name: 'command', Stmts: [stmt], Last: [] });
}
