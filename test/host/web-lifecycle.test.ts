/**
 * `deskhand web` as a person runs it: stopped while an approval waits (no stack trace, exit 0), and restarted quickly
 * with the old process still shutting down — approving the carried-over approval in the new process must resume the
 * run there (not leave it "Working…" owned by the old pid). Real processes, real sockets, the scripted model server.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../support/cli';
import { connectWeb as connect, startWeb, type Web, type WebClient } from '../support/web';
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

const startWebOn = (dataDir: string) => startWeb({ dataDir, baseURL: server.baseURL, live });

async function waitingApproval(dataDir: string, work: string): Promise<{ web: Web; conversationId: string; approvalId: string }> {
  const web = await startWebOn(dataDir);
  const c = await connect(web);
  const conv = await c.call<{ id: string }>('createConversation', { folder: work, policy: 'read-only' });
  server.enqueue(reply().tool('write_file', { path: join(work, 'out.txt'), content: 'written after restart' }));
  await c.call('sendMessage', { conversationId: conv.id, text: 'write the file' });
  const approvalId = await pollApproval(c);
  c.ws.close();
  return { web, conversationId: conv.id, approvalId };
}

async function pollApproval(c: WebClient): Promise<string> {
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
    const next = await startWebOn(dataDir); // the old one may still be shutting down
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
