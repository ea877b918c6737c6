/**
 * `deskhand web` as a person runs it: stopped while an approval waits (no stack trace, exit 0), and restarted quickly
 * with the old process still shutting down — approving the carried-over approval in the new process must resume the
 * run there (not leave it "Working…" owned by the old pid). Real processes, real sockets, the scripted model server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
const live: ChildProcess[] = [];
beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server.close());
afterEach(() => {
  for (const c of live.splice(0)) c.kill('SIGKILL');
});

interface Web {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

async function startWeb(dataDir: string): Promise<Web> {
  const child = spawn(process.execPath, [BIN, 'web', '--json', '--data-dir', dataDir, '--provider', 'openai', '--base-url', server.baseURL, '--model', 'test-model'], {
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`deskhand web exited (${code}):\n${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    url,
    stderr: () => stderr,
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

type Reply = { t: 'reply'; id: number; ok: boolean; result?: unknown; error?: { code: string; message: string } };
type Msg = Reply | { t: 'events'; events: { type: string; [k: string]: unknown }[] };

async function connect(web: Web) {
  const u = new URL(web.url);
  const ws = new WebSocket(`ws://${u.host}${u.pathname}ws`, { headers: { origin: `http://${u.host}` } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const messages: Msg[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (d: Buffer) => {
    messages.push(JSON.parse(d.toString()) as Msg);
    for (const w of [...waiters]) w();
  });
  let n = 0;
  const until = <T,>(pick: () => T | undefined, ms = 10_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; last messages ${JSON.stringify(messages.slice(-5)).slice(0, 800)}`)), ms);
      const check = () => {
        const v = pick();
        if (v === undefined) return;
        clearTimeout(t);
        waiters.delete(check);
        resolve(v);
      };
      waiters.add(check);
      check();
    });
  return {
    ws,
    async call<T = unknown>(method: string, params: unknown): Promise<T> {
      const id = ++n;
      ws.send(JSON.stringify({ id, method, params }));
      const r = await until(() => messages.find((m): m is Reply => m.t === 'reply' && m.id === id));
      if (!r.ok) throw new Error(`${method}: ${r.error?.code} ${r.error?.message}`);
      return r.result as T;
    },
    until,
  };
}

async function waitingApproval(dataDir: string, work: string): Promise<{ web: Web; conversationId: string; approvalId: string }> {
  const web = await startWeb(dataDir);
  const c = await connect(web);
  const conv = await c.call<{ id: string }>('createConversation', { folder: work, policy: 'read-only' });
  server.enqueue(reply().tool('write_file', { path: join(work, 'out.txt'), content: 'written after restart' }));
  await c.call('sendMessage', { conversationId: conv.id, text: 'write the file' });
  const approvalId = await pollApproval(c);
  c.ws.close();
  return { web, conversationId: conv.id, approvalId };
}

async function pollApproval(c: Awaited<ReturnType<typeof connect>>): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const { approvals } = await c.call<{ approvals: { approvalId: string }[] }>('listPendingApprovals', {});
    if (approvals.length) return approvals[0]!.approvalId;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no approval appeared');
}

describe('deskhand web lifecycle', () => {
  it('stops cleanly (exit 0, no stack trace) while an approval waits', async () => {
    const dataDir = tempDir('deskhand-weblife-');
    const work = tempDir('deskhand-weblife-work-');
    const { web } = await waitingApproval(dataDir, work);
    const code = await web.stop('SIGTERM');
    expect(web.stderr()).not.toMatch(/\n\s+at |database connection is not open/i);
    expect(code).toBe(0);
  }, 60_000);

  it('after a quick restart, approving the carried-over approval resumes the run in the new process', async () => {
    const dataDir = tempDir('deskhand-weblife-');
    const work = tempDir('deskhand-weblife-work-');
    const { web, conversationId, approvalId } = await waitingApproval(dataDir, work);
    const stopping = web.stop('SIGTERM');
    const next = await startWeb(dataDir); // the old one may still be shutting down
    const c = await connect(next);
    server.enqueue(reply().text('Wrote it.'));
    const r = await c.call<{ decision: string; resumed: boolean }>('decideApproval', { approvalId, decision: 'approve' });
    expect(r.decision).toBe('approved');
    await stopping;
    // The run finishes in the new process: the file is written and the conversation is idle again.
    for (let i = 0; i < 100; i++) {
      const m = await c.call<{ activeRun: unknown }>('getMessages', { conversationId });
      if (m.activeRun === null) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('written after restart');
    const m = await c.call<{ activeRun: unknown }>('getMessages', { conversationId });
    expect(m.activeRun).toBeNull();
    c.ws.close();
    expect(await next.stop()).toBe(0);
  }, 60_000);
});
