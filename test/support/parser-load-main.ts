/**
 * One process start of the bash parser (test/tools/shell/parser-load.test.ts): loads it with the code cache in
 * CACHE_DIR (or none: "-"), parses each command given, and prints one JSON line: how the load went and, per command,
 * the parse as a tree (node types, byte ranges, literal values). A separate process each time: V8 keeps compiled
 * scripts per process, so only a fresh start shows whether the cache on disk was read.
 * Usage: node --import tsx test/support/parser-load-main.ts CACHE_DIR COMMAND...
 */
import { createRequire } from 'node:module';
import { lastParserLoad, loadParser, useParserCodeCache } from '../../src/main/tools/shell/command-classifier/parser-load';

interface Sh {
  NewParser(...o: unknown[]): { Parse(src: string, name: string): unknown };
  Variant(l: unknown): unknown;
  LangBash: unknown;
  NodeType(n: unknown): string;
}

function dump(sh: Sh, node: unknown, depth: number): string {
  if (depth > 40 || node === null || typeof node !== 'object') return '';
  const n = node as Record<string, unknown> & { Pos?: () => { Offset(): number }; End?: () => { Offset(): number } };
  let type = '?';
  try {
    type = sh.NodeType(n);
  } catch {
    // a struct that is not a node
  }
  const range = typeof n.Pos === 'function' && typeof n.End === 'function' ? `${n.Pos().Offset()}-${n.End().Offset()}` : '';
  const value = typeof n.Value === 'string' ? `=${JSON.stringify(n.Value)}` : '';
  const kids = Object.getOwnPropertyNames(n)
    .filter((k) => !['__internal_object__', '$type', 'Pos', 'End'].includes(k))
    .flatMap((k) => (Array.isArray(n[k]) ? (n[k] as unknown[]) : [n[k]]).filter((v) => v && typeof v === 'object' && typeof (v as { IsValid?: unknown }).IsValid !== 'function').map((v) => `${k}:${dump(sh, v, depth + 1)}`));
  return `${type}${range}${value}(${kids.join(' ')})`;
}

const [dir, ...commands] = process.argv.slice(2);
const plain = dir === '-';
useParserCodeCache(plain ? null : dir!);
const sh = (plain ? createRequire(import.meta.url)('mvdan-sh') : loadParser()) as { syntax: Sh };
const load = lastParserLoad();
const trees = commands.map((c) => {
  try {
    return dump(sh.syntax, sh.syntax.NewParser(sh.syntax.Variant(sh.syntax.LangBash)).Parse(c, 'c'), 0);
  } catch (err) {
    return `error: ${String((err as { Error?: () => string }).Error?.() ?? err)}`;
  }
});
process.stdout.write(`${JSON.stringify({ load, trees })}\n`);
