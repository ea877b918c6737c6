/**
 * The world a security chain through the built `deskhand run` needs: a scripted model server, a fresh data folder,
 * working folder and HOME, the CLI with provider flags pointing at the server, `runs approve` to answer what parks,
 * and (for chains a person finishes in the app) `deskhand web` over the same data folder. Every process started here
 * is ended by its own handle in close().
 */
import type { ChildProcess } from 'node:child_process';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from './model-server';
import { requireBuild, runCli, type CliResult } from './cli';
import { tempDir } from './tool-context';
import { startWeb } from './web';

export interface ChainRunOptions {
  policy?: string;
  /** Tool families loaded from the first request (`--enable`). */
  enable?: string[];
  env?: NodeJS.ProcessEnv;
}

export interface WebProcess {
  /** The address `deskhand web` printed (its token included), as a person opens it. */
  url: string;
  stderr(): string;
}

export interface ChainWorld {
  server: ModelServer;
  dataDir: string;
  /** The working folder (`--cwd`) unless run() is given another. */
  work: string;
  home: string;
  /** `deskhand run … --json PROMPT` with the world's provider flags, data folder and HOME. */
  run(prompt: string, opts?: ChainRunOptions & { cwd?: string }): Promise<CliResult>;
  /** `deskhand runs approve ID --json`: the parked run goes on in this process. */
  approve(approvalId: unknown, opts?: { env?: NodeJS.ProcessEnv }): Promise<CliResult>;
  /**
   * Runs, then approves what parks (at most `max` times) while `approveIf` accepts the approval; returns every CLI
   * result in order (the last one did not park, or parked on an approval refused by `approveIf`).
   */
  runApproving(prompt: string, approveIf: (approval: CliEvent) => boolean, opts?: ChainRunOptions & { cwd?: string; max?: number }): Promise<CliResult[]>;
  /** Everything the model was sent since request number `from` (request bodies), as one string. */
  sentSince(from: number): string;
  /** `deskhand web --json` over the world's data folder, with the same provider flags. */
  startWeb(): Promise<WebProcess>;
  close(): Promise<void>;
}

export type CliEvent = CliResult['events'][number];

export const approvalsOf = (r: CliResult): CliEvent[] => r.events.filter((e) => e.type === 'approval.requested');
export const toolResultsOf = (r: CliResult): string[] => r.events.filter((e) => e.type === 'tool.result').map((e) => String(e.output));

/** The text of every tool message of one recorded OpenAI request, in order. */
export function toolMessagesOf(req: RecordedRequest): string[] {
  if (req.protocol !== 'openai') return [];
  return (req.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

export async function openChainWorld(opts: { prefix?: string; work?: string } = {}): Promise<ChainWorld> {
  requireBuild();
  const prefix = opts.prefix ?? 'deskhand-chain-a-';
  const server = await startModelServer();
  server.setFallback(() => reply().text('Done.'));
  const dataDir = tempDir(`${prefix}data-`);
  const work = opts.work ?? tempDir(`${prefix}work-`);
  const home = tempDir(`${prefix}home-`);
  const children: ChildProcess[] = [];
  const baseEnv = (extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ HOME: home, DESKHAND_MEMORY_EXTRACTION: 'off', ...extra });

  const run: ChainWorld['run'] = (prompt, o = {}) =>
    runCli(
      ['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', o.cwd ?? work, '--data-dir', dataDir, '--policy', o.policy ?? 'high-risk', ...(o.enable?.length ? ['--enable', o.enable.join(',')] : []), '--json', prompt],
      { env: baseEnv(o.env) },
    );
  const approve: ChainWorld['approve'] = (approvalId, o = {}) =>
    runCli(['runs', 'approve', String(approvalId), '--data-dir', dataDir, '--json', '--base-url', server.baseURL], { env: baseEnv(o.env) });

  return {
    server,
    dataDir,
    work,
    home,
    run,
    approve,
    async runApproving(prompt, approveIf, o = {}) {
      const results = [await run(prompt, o)];
      for (let i = 0; i < (o.max ?? 6); i++) {
        const last = results.at(-1)!;
        const asked = approvalsOf(last).at(-1);
        if (last.code !== 3 || !asked || !approveIf(asked)) break;
        results.push(await approve(asked.approvalId, o));
      }
      return results;
    },
    sentSince: (from) => server.requests.slice(from).map((r) => JSON.stringify(r.body)).join('\n'),
    async startWeb() {
      const web = await startWeb({ dataDir, baseURL: server.baseURL, env: baseEnv(), live: children });
      return { url: web.url, stderr: web.stderr };
    },
    async close() {
      for (const c of children.splice(0)) {
        if (c.exitCode !== null || c.signalCode !== null) continue;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        const timer = setTimeout(() => c.kill('SIGKILL'), 8000);
        await exited;
        clearTimeout(timer);
      }
      await server.close();
    },
  };
}
