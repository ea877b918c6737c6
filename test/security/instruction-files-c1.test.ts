/**
 * C1 (issue 43): an instruction file (AGENTS.md, CLAUDE.md) is loaded only when it is a regular file or a link to
 * another instruction file. `config/AGENTS.md → database.yml` (a link that stays in its folder, so the guarded reader
 * alone allowed it) put the file's bytes in the system prompt; so did a copy of it, whose secrets only the wire
 * redactor can catch. Every spelling below runs a real turn against the scripted model server: the refused file's
 * marker never reaches the model and the prompt names the file as not loaded; the allowed ones arrive.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { makeRuntime, providerFor } from '../extensions/helpers';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let model: ModelServer;
let runtime: AppRuntime | null = null;
let dataDir: string;
let work: string;
let config: string;
beforeEach(async () => {
  model = await startModelServer();
  model.setFallback(() => reply().text('ok'));
  dataDir = tempDir('deskhand-c1-data-');
  work = tempDir('deskhand-c1-work-');
  config = join(work, 'config');
  mkdirSync(config);
  writeFileSync(join(config, 'database.yml'), `production:\n  adapter: postgresql\n  note: Db-Marker-Rt55Kw\n`);
});
afterEach(async () => {
  runtime?.store.close();
  runtime = null;
  await model.close();
});

const MARK = 'Db-Marker-Rt55Kw';
const allSent = () => model.requests.map((r) => JSON.stringify(r.body)).join('\n');
const systemOf = (i: number): string => {
  const messages = (model.requests[i]?.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  // The stable prompt, then the instructions and per-turn context as system messages of their own (model-call.ts).
  return messages
    .filter((m) => m.role === 'system')
    .map((sys) => (typeof sys.content === 'string' ? sys.content : JSON.stringify(sys.content ?? '')))
    .join('\n\n');
};

/** One turn with the current directory in config/ (so config/AGENTS.md applies). */
async function turn(): Promise<void> {
  runtime = makeRuntime(dataDir, { redactor: new SecretRedactor({ env: {} }) });
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  const state = JSON.parse(runtime.store.getConversation(conv.id)!.state || '{}') as Record<string, unknown>;
  runtime.store.updateConversation(conv.id, { state: JSON.stringify({ ...state, cwd: config }) });
  const out = await runtime.sendMessage(conv.id, 'hello', { provider: providerFor(model), interactive: false });
  expect(out.status, out.error).toBe('finished');
}

describe('refused: not a regular file, or a link to something other than an instruction file', () => {
  const refused: [string, () => string][] = [
    ['config/AGENTS.md → database.yml (relative link in its folder)', () => (symlinkSync('database.yml', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → ./database.yml', () => (symlinkSync('./database.yml', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → absolute path of database.yml', () => (symlinkSync(join(config, 'database.yml'), join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/CLAUDE.md → database.yml', () => (symlinkSync('database.yml', join(config, 'CLAUDE.md')), join(config, 'CLAUDE.md'))],
    ['config/AGENTS.md → CLAUDE.md → database.yml (chain)', () => (symlinkSync('database.yml', join(config, 'CLAUDE.md')), symlinkSync('CLAUDE.md', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → sub/../database.yml', () => (mkdirSync(join(config, 'sub')), symlinkSync('sub/../database.yml', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → sub/AGENTS.md → ../database.yml', () => (mkdirSync(join(config, 'sub')), symlinkSync('../database.yml', join(config, 'sub', 'AGENTS.md')), symlinkSync('sub/AGENTS.md', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → database.yml.AGENTS.md-lookalike name', () => (copyFileSync(join(config, 'database.yml'), join(config, 'AGENTS.md.yml')), symlinkSync('AGENTS.md.yml', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → agents.md (another case is another file)', () => (copyFileSync(join(config, 'database.yml'), join(config, 'agents.md')), symlinkSync('agents.md', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md hard-linked to database.yml', () => (linkSync(join(config, 'database.yml'), join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md a FIFO', () => (execFileSync('mkfifo', [join(config, 'AGENTS.md')]), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md a directory', () => (mkdirSync(join(config, 'AGENTS.md')), writeFileSync(join(config, 'AGENTS.md', 'x'), MARK), join(config, 'AGENTS.md'))],
    ['config/AGENTS.md → a directory holding the marker', () => (mkdirSync(join(config, 'd')), writeFileSync(join(config, 'd', 'AGENTS.md'), MARK), symlinkSync('d', join(config, 'AGENTS.md')), join(config, 'AGENTS.md'))],
    ['workspace AGENTS.md → config/database.yml', () => (symlinkSync('config/database.yml', join(work, 'AGENTS.md')), join(work, 'AGENTS.md'))],
    ['personal AGENTS.md → a file in the data folder', () => (writeFileSync(join(dataDir, 'notes.yml'), `note: ${MARK}\n`), symlinkSync(join(dataDir, 'notes.yml'), join(dataDir, 'AGENTS.md')), join(dataDir, 'AGENTS.md'))],
  ];
  it.each(refused)('%s', async (_what, plant) => {
    const path = plant();
    await turn();
    expect(allSent()).not.toContain(MARK);
    expect(systemOf(0)).toContain(`## ${path}`);
    expect(systemOf(0)).toMatch(new RegExp(`## ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\n]*\\n\\(Not loaded: `));
  });
});

describe('loaded: a regular file, or a link to another instruction file', () => {
  const loaded: [string, () => string][] = [
    ['a regular AGENTS.md', () => (writeFileSync(join(config, 'AGENTS.md'), 'Rule-Ok-1\n'), 'Rule-Ok-1')],
    ['CLAUDE.md alone', () => (writeFileSync(join(config, 'CLAUDE.md'), 'Rule-Ok-2\n'), 'Rule-Ok-2')],
    ['AGENTS.md → CLAUDE.md', () => (writeFileSync(join(config, 'CLAUDE.md'), 'Rule-Ok-3\n'), symlinkSync('CLAUDE.md', join(config, 'AGENTS.md')), 'Rule-Ok-3')],
    ['AGENTS.md → docs/AGENTS.md (inside its folder)', () => (mkdirSync(join(config, 'docs')), writeFileSync(join(config, 'docs', 'AGENTS.md'), 'Rule-Ok-4\n'), symlinkSync('docs/AGENTS.md', join(config, 'AGENTS.md')), 'Rule-Ok-4')],
  ];
  it.each(loaded)('%s', async (_what, plant) => {
    const marker = plant();
    await turn();
    expect(systemOf(0)).toContain(marker);
  });

  it('a regular copy of database.yml named AGENTS.md loads, and the wire redactor still keeps its secret out', async () => {
    writeFileSync(join(config, 'database.yml'), `production:\n  password: Pg-Secret-Wv82Lq0Zr\n  note: ${MARK}\n`);
    copyFileSync(join(config, 'database.yml'), join(config, 'AGENTS.md'));
    await turn();
    // Loaded (a regular file is the person's to name), but the credential-named value is redacted at the wire.
    expect(systemOf(0)).toContain(MARK);
    expect(allSent()).not.toContain('Pg-Secret-Wv82Lq0Zr');
    expect(systemOf(0)).toContain('password: [redacted:password]');
  });
});
