/**
 * The bash parser: the mvdan-sh binding (a GopherJS build of mvdan/sh without typings: node fields are
 * non-enumerable getters named as in the Go structs, https://pkg.go.dev/mvdan.cc/sh/v3/syntax, positions are byte
 * offsets into the UTF-8 source), the operator tokens the walk reads, and reflection over its nodes.
 */
import { loadParser } from './parser-load';
import { SIMPLE_NODE_TYPE } from './simple-parse';

export interface ShPos {
  Offset(): number;
  IsValid(): boolean;
}
export type ShNode = { readonly [field: string]: unknown } & { Pos(): ShPos; End(): ShPos };
export interface ShParser {
  Parse(src: string, name: string): ShNode;
}
export interface ShSyntax {
  NewParser(...options: unknown[]): ShParser;
  Variant(lang: unknown): unknown;
  LangBash: unknown;
  NodeType(node: unknown): string;
}

let loaded: ShSyntax | undefined;

/**
 * The parser's API, loaded on first use (parser-load.ts: its 1.5 MB start is the largest single cost of a CLI call
 * that classifies a command, so nothing pays it at import).
 */
export function syntax(): ShSyntax {
  loaded ??= (loadParser() as { syntax: ShSyntax }).syntax;
  return loaded;
}

// Token values of mvdan/sh v3 (syntax/tokens.go) for the operators this file reads.
export const OP = {
  rdrOut: 54, appOut: 55, rdrIn: 56, rdrInOut: 57, dplIn: 58, dplOut: 59, clbOut: 60, hdoc: 61, dashHdoc: 62,
  wordHdoc: 63, rdrAll: 64, appAll: 65, testVarSet: 110, testRefVar: 111, paramExpAt: 84,
} as const;
/** `[[ a -eq b ]]` and friends evaluate both sides as arithmetic. */
export const ARITH_TESTS = new Set([116, 117, 118, 119, 120, 121]);
export const OUTPUT_REDIRS = new Set<number>([OP.rdrOut, OP.appOut, OP.rdrInOut, OP.clbOut, OP.rdrAll, OP.appAll]);

export function nodeType(node: unknown): string | null {
  if (node === null || node === undefined || typeof node !== 'object') return null;
  // A tree of simple-parse.ts: its types are known without starting the parser.
  const simple = SIMPLE_NODE_TYPE.get(node);
  if (simple) return simple;
  try {
    return syntax().NodeType(node);
  } catch {
    return null;
  }
}

export function asArray(value: unknown): ShNode[] {
  return Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as ShNode[]) : [];
}

export const SKIPPED_FIELDS = new Set(['__internal_object__', '$type', 'Pos', 'End']);

/**
 * Every node or struct below `node`, found by reflection over its fields. syntax.Walk is not used: it skips some
 * fields (the offset and length of `${x:off:len}`), and a missed `$(…)` there would go unclassified.
 */
export function children(node: ShNode): ShNode[] {
  const out: ShNode[] = [];
  for (const key of Object.getOwnPropertyNames(node)) {
    if (SKIPPED_FIELDS.has(key)) continue;
    const value = (node as Record<string, unknown>)[key];
    if (value === null || value === undefined || typeof value !== 'object') continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item === null || typeof item !== 'object') continue;
      if (typeof (item as { IsValid?: unknown }).IsValid === 'function') continue; // a position
      out.push(item as ShNode);
    }
  }
  return out;
}

/** True when an arithmetic expression (or subscript) is made only of numbers and operators. */
export function constantArithmetic(node: ShNode | null | undefined): boolean {
  if (!node) return true;
  const t = nodeType(node);
  if (t === 'Lit') return /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$/.test(String(node.Value));
  if (t !== null && !['Word', 'BinaryArithm', 'UnaryArithm', 'ParenArithm', 'ArithmExp', 'ArithmCmd', 'CStyleLoop'].includes(t)) return false;
  return children(node).every((c) => constantArithmetic(c));
}

export function isAllIndex(index: ShNode | null | undefined): boolean {
  if (!index) return false;
  const parts = asArray(index.Parts);
  return parts.length === 1 && nodeType(parts[0]) === 'Lit' && ['@', '*'].includes(String(parts[0]!.Value));
}

export function parseErrorText(err: unknown): string {
  if (err && typeof err === 'object' && typeof (err as { Error?: unknown }).Error === 'function') {
    try {
      return String((err as { Error(): unknown }).Error()).replace(/^command:/, '').slice(0, 200);
    } catch {
      // fall through
    }
  }
  return err instanceof Error ? err.message.slice(0, 200) : 'syntax error';
}

