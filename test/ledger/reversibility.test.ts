/**
 * Can a call be taken back from the change list (runtime/decision/reversibility.ts, docs/rewind.md)? A table over the real
 * built-in tools and the shell classifier: each call's effects and decision are computed as the call pipeline computes
 * them, then judged. Writes in the person's folders by a file tool or a sandboxed command are undoable; writes outside
 * them, run-later files (instruction files, .git, hooks, package scripts, CI), .git and dependency folders, commands
 * without the sandbox, the network, scheduled work, outside tools and a ledger that is off are not; reads change nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { callEffects, decide } from '../../src/main/runtime/decision/approval-engine';
import { callReversibility } from '../../src/main/runtime/decision/reversibility';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import type { SandboxMode } from '../../src/shared/sandbox';
import { tempDir } from '../support/tool-context';
import { ledgerRecords } from '../../src/main/services/ledger';
import { builtinTool } from '../support/tools';

const dataDir = tempDir('deskhand-rev-data-');
const work = tempDir('deskhand-rev-work-');
const outside = tempDir('deskhand-rev-outside-');
writeFileSync(join(work, 'notes.txt'), 'x\n');
mkdirSync(join(work, 'node_modules', 'pkg'), { recursive: true });
mkdirSync(join(work, '.git', 'hooks'), { recursive: true });
writeFileSync(join(work, '.git', 'HEAD'), 'ref: refs/heads/main\n');
// A folder the root's .gitignore names, and a file over the ledger's 8 MiB: the ledger keeps neither's old bytes.
writeFileSync(join(work, '.gitignore'), 'build/\n');
mkdirSync(join(work, 'build'), { recursive: true });
writeFileSync(join(work, 'big.bin'), Buffer.alloc(9 * 1024 * 1024));

async function judge(tool: ToolDefinition, args: unknown, opts: { sandbox?: SandboxMode; ledger?: boolean; roots?: string[] } = {}) {
  const roots = opts.roots ?? [work];
  const ctx = { cwd: roots[0]!, workspaceRoots: roots, dataDir, sandbox: opts.sandbox ?? 'workspace-write' };
  const effects = await callEffects(tool, tool.params.parse(args), ctx);
  const d = decide({ tool, args, effects, policy: 'none', tainted: false, ctx });
  return callReversibility({ tool, effects, paths: d.paths, network: d.network, egress: d.egress, sandbox: ctx.sandbox, workspaceRoots: roots, ledger: opts.ledger ?? true, recorded: (writes) => ledgerRecords(roots, dataDir, writes) });
}

const tool = (name: string) => builtinTool(name, { dataDir });

describe('callReversibility', () => {
  const table: [string, string, unknown, 'undoable' | 'irreversible' | 'no-change', RegExp | null, { sandbox?: SandboxMode; ledger?: boolean; roots?: string[] }?][] = [
    // File tools in the person's folders: undoable.
    ['write a new file', 'write_file', { path: 'new.txt', content: 'a' }, 'undoable', null],
    ['write by absolute path', 'write_file', { path: join(work, 'sub', 'b.txt'), content: 'a' }, 'undoable', null],
    ['edit a file', 'edit_file', { path: 'notes.txt', old_string: 'x', new_string: 'y' }, 'undoable', null],
    ['remove a file', 'rm', { path: 'notes.txt' }, 'undoable', null],
    ['make a folder', 'mkdir', { path: 'made' }, 'undoable', null],
    ['move a file', 'mv', { source: 'notes.txt', destination: 'moved.txt' }, 'undoable', null],
    ['copy a file', 'cp', { source: 'notes.txt', destination: 'copy.txt' }, 'undoable', null],
    // Reads: nothing to take back.
    ['read a file', 'read_file', { path: 'notes.txt' }, 'no-change', null],
    ['list a folder', 'ls', { path: '.' }, 'no-change', null],
    // Outside the folders, run-later files, .git and dependency folders.
    ['write outside', 'write_file', { path: join(outside, 'x.txt'), content: 'a' }, 'irreversible', /outside your folders/],
    ['write to home', 'write_file', { path: '~/deskhand-rev-test.txt', content: 'a' }, 'irreversible', /outside your folders/],
    ['write a git hook', 'write_file', { path: '.git/hooks/pre-commit', content: 'a' }, 'irreversible', /runs later|\.git/],
    ['write .npmrc', 'write_file', { path: '.npmrc', content: 'a' }, 'irreversible', /runs later/],
    ['write a Makefile', 'write_file', { path: 'Makefile', content: 'a' }, 'irreversible', /runs later/],
    ['write AGENTS.md', 'write_file', { path: 'AGENTS.md', content: 'a' }, 'irreversible', /runs later/],
    ['write a CI file', 'write_file', { path: '.github/workflows/ci.yml', content: 'a' }, 'irreversible', /runs later/],
    ['write into node_modules', 'write_file', { path: 'node_modules/pkg/index.js', content: 'a' }, 'irreversible', /runs later|node_modules/],
    ['write .git/HEAD', 'write_file', { path: '.git/HEAD', content: 'a' }, 'irreversible', /\.git/],
    // Commands: in the sandbox undoable, without it not; the network never.
    ['sandboxed command', 'execute_command', { command: 'echo hi > out.txt' }, 'undoable', null],
    ['sandboxed delete', 'execute_command', { command: 'rm notes.txt' }, 'undoable', null],
    ['command without sandbox', 'execute_command', { command: 'echo hi > out.txt' }, 'irreversible', /without the sandbox/, { sandbox: 'off' }],
    ['git push', 'execute_command', { command: 'git push origin main' }, 'irreversible', /network/],
    ['curl', 'execute_command', { command: 'curl https://example.com -o page.html' }, 'irreversible', /network/],
    ['redirect outside', 'execute_command', { command: `echo hi > ${join(outside, 'x.txt')}` }, 'irreversible', /outside your folders/],
    // The network, scheduled work.
    ['web fetch', 'web_fetch', { url: 'https://example.com/' }, 'irreversible', /network/],
    ['a wake trigger', 'register_trigger', { when: '30m', prompt: 'check' }, 'irreversible', /later/],
    // The ledger off, a folder too broad to record.
    ['ledger off', 'write_file', { path: 'new.txt', content: 'a' }, 'irreversible', /ledger is off/, { ledger: false }],
    ['home as the folder', 'write_file', { path: join(homedir(), 'deskhand-rev.txt'), content: 'a' }, 'irreversible', /too broad/, { roots: [homedir()] }],
    // The ledger's own answer (the one the confined inspector asks): what it would not keep is not undoable.
    ['into a gitignored folder', 'write_file', { path: 'build/out.txt', content: 'a' }, 'irreversible', /would not keep/],
    ['over a file above 8 MiB', 'write_file', { path: 'big.bin', content: 'a' }, 'irreversible', /would not keep/],
    ['a package manifest', 'write_file', { path: 'package.json', content: '{}' }, 'irreversible', /scripts run later/],
    ['a build script', 'write_file', { path: 'build.rs', content: 'fn main() {}' }, 'irreversible', /scripts run later/],
    ['temp as the folder', 'write_file', { path: join(tmpdir(), 'deskhand-rev.txt'), content: 'a' }, 'irreversible', /too broad/, { roots: [tmpdir()] }],
  ];
  for (const [label, name, args, kind, why, opts] of table) {
    it(`${label} (${name}): ${kind}`, async () => {
      const fact = await judge(tool(name), args, opts);
      expect(fact.kind, JSON.stringify(fact)).toBe(kind);
      if (why) expect(fact.words).toMatch(why);
      expect(fact.words).toMatch(kind === 'undoable' ? /^Can be undone from the change list/ : kind === 'irreversible' ? /^Cannot be taken back: / : /^Changes no files/);
    });
  }

  it('an MCP or custom tool cannot be taken back: what it does is not known in advance', async () => {
    for (const kind of ['mcp', 'custom'] as const) {
      const outsideTool = defineTool({ name: `mcp__s__t_${kind}`, kind, description: 'x', params: z.object({}), risk: 'unknown', disclosure: 'public', execute: async () => ({ output: '' }) }) as ToolDefinition;
      const fact = callReversibility({ tool: outsideTool, effects: { processes: true }, paths: [], network: false, egress: false, sandbox: 'workspace-write', workspaceRoots: [work], ledger: true });
      expect(fact.kind).toBe('irreversible');
      expect(fact.words).toMatch(/not known in advance/);
    }
  });
});
