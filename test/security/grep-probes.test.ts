/**
 * grep probes (issue 29, mechanism 13): matching sees only what the model may see. A vault secret and an API-key-shaped
 * token sit in an ordinary (not secret-bearing) file; for patterns that match a prefix of them, a character class,
 * a case-insensitive spelling, a span across them, every output mode must answer exactly as it does for the same
 * folder where each secret is replaced by its placeholder — so no mode (a file list, a count, a line) tells whether
 * the hidden value matches.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { grepTool } from '../../src/main/tools/files/grep';
import { makeContext, tempDir } from '../support/tool-context';

type GrepArgs = Parameters<typeof grepTool.execute>[0];

const VAULT = `Zq8-vault-${Math.random().toString(36).slice(2, 10)}-kept`;
const GH = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

const redactor = new SecretRedactor();
redactor.addSecret('VAULT_TOKEN', VAULT);

function put(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

const RAW = [
  'ordinary line one',
  `payload: ${VAULT} end`,
  'ordinary line two',
  `key-like ${GH} inside`,
  'Zq8 and ghp_ mentioned plainly here',
  'ordinary line three',
].join('\n') + '\n';

const raw = tempDir('deskhand-grep-raw-');
const placeholder = tempDir('deskhand-grep-placeholder-');

beforeAll(() => {
  const hidden = redactor.redact(RAW);
  // The comparison folder holds what the model may see: the placeholders where the secrets were.
  expect(hidden).toContain('[redacted:VAULT_TOKEN]');
  expect(hidden).not.toContain(GH);
  for (const [root, text] of [[raw, RAW], [placeholder, hidden]] as const) {
    put(root, 'notes/config.txt', text);
    put(root, 'notes/other.txt', 'ordinary line elsewhere\nnothing secret Zq8\n');
    put(root, 'src/app.ts', 'const ordinary = 1;\n');
  }
});

function grepIn(root: string, a: GrepArgs): Promise<string> {
  const ctx = makeContext(root);
  ctx.redact = (text) => redactor.redact(text);
  return grepTool.execute(a, ctx).then((r) => r.output);
}

const PATTERNS: { name: string; pattern: string; i?: boolean; multiline?: boolean }[] = [
  { name: 'a prefix of the vault secret', pattern: 'Zq8-vau' },
  { name: 'a longer prefix of the vault secret', pattern: VAULT.slice(0, 16) },
  { name: 'the whole vault secret', pattern: VAULT.replaceAll('-', '\\-') },
  { name: 'a character class over the vault secret', pattern: 'Zq8-[a-z]{5}-[a-z0-9]{4}' },
  { name: 'the vault secret case-insensitively', pattern: 'zq8-VAULT', i: true },
  { name: 'a suffix of the vault secret', pattern: '-kept end' },
  { name: 'a prefix of the token', pattern: 'ghp_A1b2' },
  { name: 'a character class over the token', pattern: 'ghp_[A-Za-z0-9]{36}' },
  { name: 'the token case-insensitively', pattern: 'GHP_a1B2c3', i: true },
  { name: 'a class spanning the token', pattern: 'key-like [a-z_]+[A-Z0-9]' },
  { name: 'a span across both lines', pattern: 'payload: Zq8[\\s\\S]*ghp_A', multiline: true },
  { name: 'a word that also stands in plain text', pattern: 'Zq8' },
  { name: 'ordinary text (control)', pattern: 'ordinary' },
];

const MODES: { name: string; extra: Partial<GrepArgs> }[] = [
  { name: 'content', extra: { output_mode: 'content' } },
  { name: 'content with context', extra: { output_mode: 'content', '-C': 1 } },
  { name: 'content without line numbers', extra: { output_mode: 'content', '-n': false } },
  { name: 'files_with_matches', extra: { output_mode: 'files_with_matches' } },
  { name: 'count_matches', extra: { output_mode: 'count_matches' } },
  { name: 'count_matches of one file', extra: { output_mode: 'count_matches', path: 'notes/config.txt' } },
  { name: 'files_with_matches, paged', extra: { output_mode: 'files_with_matches', head_limit: 1, offset: 0 } },
];

describe('every mode answers for the redacted text', () => {
  for (const m of MODES) {
    it.each(PATTERNS)(`${m.name}: $name`, async (p) => {
      const a: GrepArgs = { pattern: p.pattern, ...(p.i ? { '-i': true } : {}), ...(p.multiline ? { multiline: true } : {}), ...m.extra };
      const seen = await grepIn(raw, a);
      const allowed = await grepIn(placeholder, a);
      expect(seen).toBe(allowed);
      expect(seen).not.toContain(VAULT);
      expect(seen).not.toContain(GH);
    });
  }

  it('an absolute path outside the working directory is answered the same way', async () => {
    const elsewhere = tempDir('deskhand-grep-cwd-');
    const run = (root: string) => {
      const ctx = makeContext(elsewhere);
      ctx.redact = (text) => redactor.redact(text);
      return grepTool.execute({ pattern: 'Zq8-vau', path: join(root, 'notes'), output_mode: 'files_with_matches' }, ctx).then((r) => r.output);
    };
    const seen = await run(raw);
    expect(seen).toMatch(/^No matches/);
  });
});
