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
});
