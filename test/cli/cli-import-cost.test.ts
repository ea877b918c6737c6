/**
 * Import cost of the CLI's start (issue 30): `deskhand --help` loads none of the heavy families' libraries. Checked by
 * what the process resolved (an `--import` recorder: ESM resolve hook + CommonJS require), not by timing; the figures
 * are bench/cli-start.bench.ts's. The recorder is proven to see a heavy import by a control process that imports one.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild } from '../support/cli';
import { tempDir } from '../support/tool-context';

const RECORDER = resolve(__dirname, '../support/record-imports.mjs');
const HEAVY = ['playwright-core', '@ai-sdk/', 'node_modules/ai/', 'pdfjs-dist', '@modelcontextprotocol/sdk', 'node_modules/react/', 'node_modules/react-dom/', 'dbus-next', 'better-sqlite3', 'linkedom'];

function loaded(args: string[]): { lines: string[]; status: number | null } {
  const out = join(tempDir('deskhand-imports-'), 'record.txt');
  const r = spawnSync(process.execPath, ['--import', RECORDER, ...args], { env: cliEnv({ DESKHAND_RECORD_IMPORTS: out }), encoding: 'utf8', timeout: 60_000 });
  let text = '';
  try {
    text = readFileSync(out, 'utf8');
  } catch {
    // nothing recorded
  }
  return { lines: text.split('\n').filter(Boolean), status: r.status };
}

const heavyIn = (lines: string[]) => HEAVY.filter((h) => lines.some((l) => l.includes(h)));

/** What no command that leaves the agent alone may load: Playwright, the AI SDK and its providers, pdf.js, the MCP SDK, React, and the web page extractor (linkedom: loaded on the first page web_fetch extracts). */
const AGENT_ONLY = ['playwright-core', '@ai-sdk/', 'node_modules/ai/', 'pdfjs-dist', '@modelcontextprotocol/sdk', 'node_modules/react/', 'node_modules/react-dom/', 'linkedom'];
const agentOnlyIn = (lines: string[]) => AGENT_ONLY.filter((h) => lines.some((l) => l.includes(h)));

describe('the CLI loads only what a command uses', () => {
  it('the recorder sees a heavy library when one is imported (control)', () => {
    const { lines, status } = loaded(['--input-type=module', '-e', "await import('playwright-core')"]);
    expect(status).toBe(0);
    expect(heavyIn(lines)).toContain('playwright-core');
  });

  it.each([{ argv: ['--help'] }, { argv: ['help'] }, { argv: ['-h'] }, { argv: [] as string[] }])('`deskhand $argv` loads no family library, provider, Playwright, pdf.js, MCP SDK or React', ({ argv }) => {
    requireBuild();
    const { lines, status } = loaded([BIN, ...argv]);
    expect(status).toBe(argv.length === 0 ? 2 : 0);
    expect(lines.some((l) => l.includes('out/main/cli.js'))).toBe(true);
    expect(heavyIn(lines)).toEqual([]);
    // Nothing of node_modules at all: help is the usage text and nothing else.
    expect(lines.filter((l) => l.includes('node_modules/'))).toEqual([]);
  });

  it('`deskhand runs list` reads the store and loads nothing of the agent (no family library, provider, Playwright, pdf.js, MCP SDK, React)', () => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    const { lines, status } = loaded([BIN, 'runs', 'list', '--data-dir', dataDir]);
    expect(status).toBe(0);
    // It did open the store (the recorder saw the SQLite binding), and nothing heavier.
    expect(lines.some((l) => l.includes('better-sqlite3'))).toBe(true);
    expect(heavyIn(lines).filter((h) => h !== 'better-sqlite3')).toEqual([]);
  });

  it.each([
    { tool: 'execute_command', args: '{"command":"ls -la"}' },
    { tool: 'read_file', args: '{"path":"a.txt"}' },
    { tool: 'browser_navigate', args: '{"url":"https://example.com"}' },
  ])('`deskhand policy explain --tool $tool` judges the call without loading Playwright, the AI SDK, pdf.js, the MCP SDK or React', ({ tool, args }) => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    const { lines, status } = loaded([BIN, 'policy', 'explain', '--tool', tool, '--args', args, '--data-dir', dataDir]);
    expect(status).toBe(0);
    expect(agentOnlyIn(lines)).toEqual([]);
  });

  it('the recorder sees what a command that runs the agent loads (control: `deskhand run` imports the AI SDK)', () => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    // No key and no provider: the run stops with a usage error after loading the agent's module.
    const { lines } = loaded([BIN, 'run', '--data-dir', dataDir, '--provider', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1', '--max-steps', 'x', 'hi']);
    expect(agentOnlyIn(lines)).toContain('node_modules/ai/');
  });
});
