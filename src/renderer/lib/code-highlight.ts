/**
 * Code highlighting through highlight.js — its core and a set of common languages only, so the bundle stays small.
 * Output is highlight.js's HTML (every piece of the source escaped by it), with classes `tok-…` that styles.css colours
 * per theme. A block without a language is auto-detected only when it is small; otherwise it stays plain text.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['toml'], { languageName: 'ini' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['zsh', 'sh'], { languageName: 'bash' });
hljs.configure({ classPrefix: 'tok-' });

/** Auto-detection only below these sizes: it runs every grammar, so a big unlabelled block stays plain. */
export const AUTO_DETECT_MAX_CHARS = 2000;
export const AUTO_DETECT_MAX_LINES = 60;
/** Highlighting itself stops above this (a huge file stays readable text and the view stays fast). */
const MAX_CHARS = 200_000;

export interface Highlighted {
  /** The language used, or null when the code is shown as plain text. */
  language: string | null;
  /** HTML from highlight.js (escaped by it), or null for plain text. */
  html: string | null;
}

/** The language highlight.js knows for a fence label or file extension, or null. */
export function knownLanguage(label: string | null | undefined): string | null {
  const l = (label ?? '').trim().toLowerCase();
  if (!l) return null;
  const lang = hljs.getLanguage(l);
  return lang ? (hljs.listLanguages().find((n) => hljs.getLanguage(n) === lang) ?? l) : null;
}

/**
 * Highlights by the label's language; an unlabelled small block is detected unless `detect` is false (a block still
 * streaming: detection tries every language, ≈ 3.5 ms for 900 characters, and would run again on every token — the
 * block is detected once, when its fence closes).
 */
export function highlightCode(code: string, label?: string | null, opts: { detect?: boolean } = {}): Highlighted {
  if (code.length > MAX_CHARS) return { language: null, html: null };
  const language = knownLanguage(label);
  if (language) return { language, html: hljs.highlight(code, { language, ignoreIllegals: true }).value };
  if ((label && label.trim()) || opts.detect === false) return { language: null, html: null };
  if (code.length > AUTO_DETECT_MAX_CHARS || code.split('\n').length > AUTO_DETECT_MAX_LINES) return { language: null, html: null };
  const auto = hljs.highlightAuto(code);
  // A low relevance is a guess (prose, a path, a number): leave such text plain.
  if (!auto.language || auto.relevance < 5) return { language: null, html: null };
  return { language: auto.language, html: auto.value };
}

const EXTENSIONS: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  py: 'python', rs: 'rust', go: 'go', java: 'java', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', css: 'css', json: 'json',
  md: 'markdown', yml: 'yaml', yaml: 'yaml', toml: 'ini', ini: 'ini', sh: 'bash', bash: 'bash', zsh: 'bash', sql: 'sql',
  html: 'xml', xml: 'xml', svg: 'xml', diff: 'diff', patch: 'diff',
};

/** The language for a file path by its extension, or null (tool outputs of file reads). */
export function languageForPath(path: string | null | undefined): string | null {
  const m = /\.([A-Za-z0-9]+)$/.exec(path ?? '');
  return m ? (EXTENSIONS[m[1]!.toLowerCase()] ?? null) : null;
}
