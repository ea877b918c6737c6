/**
 * Import cost of the CLI's start (issue 30): `deskhand --help` loads none of the heavy families' libraries. Checked by
 * what the process resolved (an `--import` recorder: ESM resolve hook + CommonJS require), not by timing; the figures
 * are bench/cli-start.bench.ts's. The recorder is proven to see a heavy import by a control process that imports one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinModules } from 'node:module';
import { BIN, cliEnv, requireBuild } from '../support/cli';
import { rawAll } from '../support/raw-db';
import { Store } from '../../src/main/services/store/store';
import { hostSchedules } from '../../src/main/host/assembly/schedule-wiring';
import { tempDir } from '../support/tool-context';
import { startModelServer } from '../support/model-server';

const RECORDER = resolve(__dirname, '../support/record-imports.mjs');
/**
 * The AI SDK is bundled into the build (electron.vite.config.ts), in chunks of their own names: `ai-sdk` (the
 * OpenAI-compatible provider and what every provider imports), `ai-anthropic` and `ai-openai` (loaded by the first call
 * of one of their models), `ai-core` (the SDK's core, `ai`, which only the media companion uses), or the packages
 * should they ever load from node_modules again.
 */
const AI_SDK = ['out/main/chunks/ai-sdk-', 'out/main/chunks/ai-core-', 'out/main/chunks/ai-anthropic-', 'out/main/chunks/ai-openai-', '@ai-sdk/', 'node_modules/ai/'];
const HEAVY = ['playwright-core', ...AI_SDK, 'pdfjs-dist', '@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/core', 'node_modules/react/', 'node_modules/react-dom/', 'dbus-next', 'better-sqlite3', 'linkedom'];

function loaded(args: string[], env: NodeJS.ProcessEnv = {}): { lines: string[]; status: number | null } {
  const out = join(tempDir('deskhand-imports-'), 'record.txt');
  const r = spawnSync(process.execPath, ['--import', RECORDER, ...args], { env: cliEnv({ ...env, DESKHAND_RECORD_IMPORTS: out }), encoding: 'utf8', timeout: 60_000 });
  let text = '';
  try {
    text = readFileSync(out, 'utf8');
  } catch {
    // nothing recorded
  }
  return { lines: text.split('\n').filter(Boolean), status: r.status };
}

const heavyIn = (lines: string[]) => HEAVY.filter((h) => lines.some((l) => l.includes(h)));

/** The npm packages a process loaded: `node_modules/<name>` in what it resolved, and bare names it required. */
function packagesIn(lines: string[]): string[] {
  const out = new Set<string>();
  for (const l of lines) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l);
    if (m) out.add(m[1]!);
    const bare = /^require ((?:@[^/.][^/]*\/)?[^./][^/]*)$/.exec(l);
    if (bare && !l.startsWith('require node:') && !BUILTINS.has(bare[1]!)) out.add(bare[1]!);
  }
  return [...out].sort();
}
const BUILTINS = new Set(builtinModules);
/** The files of the build a process loaded (out/main/cli.cjs and its chunks). */
const buildFiles = (lines: string[]) => [...new Set(lines.filter((l) => l.includes('/out/main/')).map((l) => l.slice(l.indexOf('/out/main/') + 1)))];
/** The chunks that hold every family and the runtime: no shell explanation and no reminder fire loads them. */
const RUNTIME_CHUNKS = /out\/main\/chunks\/(host-services|open-runtime)-/;

/** What no command that leaves the agent alone may load: Playwright, the AI SDK and its providers, pdf.js, the MCP SDK, React, and the web page extractor (linkedom: loaded on the first page web_fetch extracts). */
const AGENT_ONLY = ['playwright-core', ...AI_SDK, 'pdfjs-dist', '@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/core', 'node_modules/react/', 'node_modules/react-dom/', 'linkedom'];
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
    // The CommonJS build is what `deskhand` runs (bin/deskhand.js prefers it: compile-cache.ts).
    expect(lines.some((l) => l.includes('out/main/cli.cjs'))).toBe(true);
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

  it.each([
    { command: 'git status', parser: false },
    { command: 'ls -la', parser: false },
    { command: 'npm run build', parser: false },
    { command: 'curl https://example.com | sh', parser: true },
    { command: 'cat <<EOF > notes.txt\n$(whoami)\nEOF', parser: true },
    { command: 'ls "a b"', parser: true },
  ])('`deskhand policy explain` of `$command` loads no other family\'s library, no D-Bus, scheduler, keychain, process or HTTP library (bash parser started: $parser)', ({ command, parser }) => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    const { lines, status } = loaded([BIN, 'policy', 'explain', '--tool', 'execute_command', '--args', JSON.stringify({ command }), '--data-dir', dataDir]);
    expect(status).toBe(0);
    const NOT_FOR_EXPLAIN = [...AGENT_ONLY, 'dbus-next', 'croner', 'keytar', 'execa', 'undici', 'jimp', '@nut-tree-fork/', 'highlight.js', 'diff/', '@vscode/ripgrep', 'turndown', '@mozilla/readability', 'fflate', 'ignore/', '@a2a-js/', '@agentclientprotocol/', 'zod/', 'mvdan-sh'];
    expect(NOT_FOR_EXPLAIN.filter((h) => lines.some((l) => l.includes(`node_modules/${h}`) || l === `require ${h.replace(/\/$/, '')}`))).toEqual([]);
    // The bash parser starts (and leaves its code cache in the data folder) only for what is more than one plain command.
    const caches = existsSync(join(dataDir, 'cache')) ? readdirSync(join(dataDir, 'cache')).filter((n) => n.endsWith('.v8cache')) : [];
    expect(caches.length > 0).toBe(parser);
  });

  it('`deskhand policy explain` of a shell command loads the store, the shell parser and the engine: no other family, no runtime', () => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    const shell = loaded([BIN, 'policy', 'explain', '--tool', 'execute_command', '--args', '{"command":"git diff | grep x > out.txt"}', '--data-dir', dataDir]);
    expect(shell.status).toBe(0);
    // The module set it may load from npm: SQLite (with its binding loader), nothing else (zod is bundled into the
    // build; the shell parser loads through its code cache, below).
    expect(packagesIn(shell.lines)).toEqual(['better-sqlite3', 'bindings', 'file-uri-to-path']);
    expect(shell.lines.filter((l) => l.includes('node_modules/zod/'))).toEqual([]);
    expect(buildFiles(shell.lines).filter((f) => RUNTIME_CHUNKS.test(f))).toEqual([]);
    // It parsed the command (the parser's code cache is in the data folder) and remembered the sandbox probe.
    expect(readdirSync(join(dataDir, 'cache')).filter((n) => /^mvdan-sh-.*\.v8cache$/.test(n))).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dataDir, 'cache', 'sandbox-probe.json'), 'utf8'))).toMatchObject({ support: { available: expect.any(Boolean) } });
    // Control: explaining a tool of another family takes the full path, and the recorder sees it.
    const other = loaded([BIN, 'policy', 'explain', '--tool', 'read_file', '--args', '{"path":"a.txt"}', '--data-dir', dataDir]);
    expect(other.status).toBe(0);
    expect(buildFiles(other.lines).some((f) => RUNTIME_CHUNKS.test(f))).toBe(true);
    expect(buildFiles(shell.lines).length).toBeLessThan(buildFiles(other.lines).length);
  });

  it('`deskhand fire` of a due reminder loads the store, the OS scheduler and the notifier: no family, no runtime, no agent', async () => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    const store = new Store(dataDir);
    const schedules = hostSchedules(store, dataDir, { os: false });
    const { row } = await schedules.addReminder({ text: 'IMPORTS-1 stretch', when: '1h', conversationId: null });
    schedules.rows.update(row.id, { next_at: Date.now() });
    store.close();
    // No notification server is asked (DESKHAND_NOTIFY=off: the fire records that it could not show one).
    const fire = loaded([BIN, 'fire', row.id, '--data-dir', dataDir], { DESKHAND_NOTIFY: 'off' });
    const [f] = rawAll<{ status: string; via: string }>(dataDir, 'SELECT status, via FROM schedule_fires WHERE schedule_id = ?', row.id);
    expect(f).toEqual({ status: 'failed', via: 'os' });
    expect(fire.status).toBe(1);
    expect(buildFiles(fire.lines).filter((l) => RUNTIME_CHUNKS.test(l))).toEqual([]);
    expect(agentOnlyIn(fire.lines)).toEqual([]);
    const allowed = new Set(['better-sqlite3', 'bindings', 'file-uri-to-path', 'zod', 'croner', 'dbus-next', '@nornagon/put', 'jsbi', 'long', 'safe-buffer', 'sax', 'xml2js', 'xmlbuilder']);
    expect(packagesIn(fire.lines).filter((p) => !allowed.has(p))).toEqual([]);
  });

  it('the recorder sees what a command that runs the agent loads (control: `deskhand run` imports the AI SDK)', () => {
    requireBuild();
    const dataDir = tempDir('deskhand-imports-data-');
    // No key and no provider: the run stops with a usage error after loading the agent's module.
    const { lines } = loaded([BIN, 'run', '--data-dir', dataDir, '--provider', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1', '--max-steps', 'x', 'hi']);
    expect(agentOnlyIn(lines)).toContain('out/main/chunks/ai-sdk-');
  });

  it('`deskhand run --conversation` makes its first model request before loading what the request does not need (HTTP client of the web tools, D-Bus, Playwright, pdf.js, MCP SDK, React, page extractor, image and desktop libraries, ripgrep, the AI SDK\'s core, the providers it does not use, the app\'s whole contract, zod 3, zip, ignore-file and cron libraries)', async () => {
    requireBuild();
    const out = join(tempDir('deskhand-imports-'), 'record.txt');
    // What the process had resolved when its request reached the server (the recorder appends synchronously).
    const seen: { atRequest: string[] | null } = { atRequest: null };
    const server = await startModelServer({ onRequest: () => (seen.atRequest ??= readFileSync(out, 'utf8').split('\n').filter(Boolean)) });
    server.setFallback(() => ({ text: ['ok'] }));
    try {
      const dataDir = tempDir('deskhand-imports-data-');
      const work = tempDir('deskhand-imports-work-');
      const store = new Store(dataDir);
      store.createConversation({ id: 'conv_imports', title: 'imports', folder: work, policy: 'low-risk' });
      store.close();
      const args = ['--import', RECORDER, BIN, 'run', '--conversation', 'conv_imports', '--provider', 'openai-compatible', '--base-url', server.baseURL, '--model', 'm', '--data-dir', dataDir, '--cwd', work, 'hi'];
      const child = spawn(process.execPath, args, { env: cliEnv({ DESKHAND_RECORD_IMPORTS: out, DESKHAND_OS_SCHEDULER: 'none', DESKHAND_NOTIFY: 'off' }), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((done) => child.on('exit', done));
      expect(code, stderr).toBe(0);
      expect(server.requests).toHaveLength(1);
      const lines = seen.atRequest ?? [];
      // Control: by then it had loaded the agent (the AI SDK's chunk, the runtime) and the store.
      expect(lines.some((l) => l.includes('out/main/chunks/ai-sdk-'))).toBe(true);
      expect(buildFiles(lines).some((f) => RUNTIME_CHUNKS.test(f))).toBe(true);
      // The AI SDK's core (`ai` with its gateway provider: the providers do not need it), the providers this run does
      // not use (Anthropic's, OpenAI's) and the contract's index (every area's schemas: a run reads its settings through
      // the settings part alone) are not loaded either.
      const DEFERRED = ['node_modules/undici/', 'node_modules/dbus-next/', 'playwright-core', 'pdfjs-dist', '@modelcontextprotocol/', 'node_modules/react/', 'node_modules/react-dom/', 'linkedom', 'jimp', '@nut-tree-fork/', '@vscode/ripgrep', '@a2a-js/', 'keytar', 'node_modules/zod/', 'node_modules/diff/', 'out/main/chunks/contract-', 'out/main/chunks/zod-v3-', ...AI_SDK.slice(1)];
      expect(DEFERRED.filter((h) => lines.some((l) => l.includes(h)))).toEqual([]);
      // Nor the libraries of a first zip, folder walk or cron expression (each loaded by its first use), imported or required.
      expect(packagesIn(lines).filter((p) => ['fflate', 'ignore', 'croner'].includes(p))).toEqual([]);
      // Nor, inside the build's chunks it loaded (the build names each bundled module in a comment), zod 3 (the AI SDK
      // gets only the names of its kinds), OpenAI's own copy of provider-utils, the contract's tools area or the settings
      // area's views and methods (a run reads settings.json through contract/settings-schema.ts).
      const sources = buildFiles(lines).flatMap((f) => [...readFileSync(resolve(__dirname, '../..', f), 'utf8').matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1]!));
      expect(sources).toContain('src/shared/contract/settings-schema.ts');
      const NOT_BUNDLED_IN = ['node_modules/zod/v3/', 'node_modules/@ai-sdk/openai/', 'src/shared/contract/tools.ts', 'src/shared/contract/settings.ts'];
      expect(NOT_BUNDLED_IN.filter((n) => sources.some((s) => s.includes(n)))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
