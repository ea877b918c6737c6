/**
 * The parse and classification caches (least recently used first out). A parse depends on the text alone; a
 * classification is cached only when it never looked at the file system.
 */
import { parseErrorText, syntax, type ShNode } from './sh';
import { simpleParse } from './simple-parse';
import type { CommandClassification } from './types';

/** Entries kept by the parse and classification caches (least recently used first out). */
export const CACHE_ENTRIES = 256;

export function cacheGet<V>(cache: Map<string, V>, key: string): V | undefined {
  const v = cache.get(key);
  if (v !== undefined) {
    cache.delete(key);
    cache.set(key, v);
  }
  return v;
}

export function cachePut<V>(cache: Map<string, V>, key: string, v: V): void {
  cache.set(key, v);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

/** Parsed sources: a parse depends on the text alone (the walk only reads the tree). */
export const parses = new Map<string, { node: ShNode } | { error: string }>();
/**
 * One source string parsed, through the cache: a plain command is read without starting the bash parser
 * (simple-parse.ts gives the same tree); a parse error is kept as its text.
 */
export function parseSource(src: string): { node: ShNode } | { error: string } {
  let parsed = cacheGet(parses, src);
  if (!parsed) {
    try {
      const simple = simpleParse(src);
      const sh = simple ? null : syntax();
      parsed = { node: (simple as ShNode | null) ?? sh!.NewParser(sh!.Variant(sh!.LangBash)).Parse(src, 'command') };
    } catch (err) {
      parsed = { error: parseErrorText(err) };
    }
    cachePut(parses, src, parsed);
  }
  return parsed;
}

/**
 * Classifications that never looked at the file system (no path argument or redirection checked, no git repository
 * read), keyed by the command and the context the analysis reads. Those consulting the disk are recomputed every
 * time, since a path can change between two identical commands (a folder replaced by a symlink).
 */
export const classifications = new Map<string, CommandClassification>();

/** Forgets cached parses and classifications (tests that change COMMAND_LIMITS or the environment). */
export function clearClassifierCache(): void {
  parses.clear();
  classifications.clear();
}
