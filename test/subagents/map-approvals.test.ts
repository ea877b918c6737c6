/**
 * 100 mapped children under a concurrency cap, and a child's approval answered from its parent's UI contract
 * (AppService.listPendingApprovals / decideApproval) and from the `deskhand runs approve` binary in another process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../support/model-server';
import { requireBuild, runCli } from '../support/cli';
import { openHarness, type Harness } from '../host/helpers';
import { firstUser, lastMessage, openSubHarness, route, textOf, type SubHarness } from './harness';
import { startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let h: SubHarness | null = null;
let app: Harness | null = null;
let server: ModelServer | null = null;
afterEach(async () => {
  await h?.close();
  if (app) {
    await app.runtime.tasks.shutdown();
    app.close();
  }
  await server?.close();
  h = app = server = null;
});

describe('map_subagents', () => {
  it('runs 100 children with at most 5 live at once and returns every answer in item order', async () => {
    h = await openSubHarness();
    const parent = [
      reply().tool('map_subagents', { prompt_template: 'MAP ITEM {{input}}: double it', items: Array.from({ length: 100 }, (_, i) => String(i)), description: 'double', max_concurrency: 5 }),
      reply().text('all doubled'),
    ];
    h.server.setFallback((req) => {
      const m = /MAP ITEM (\d+)/.exec(firstUser(req));
      if (m) return reply().text(`R${Number(m[1]) * 2}`).delay(5);
      return parent.shift() ?? { status: 500 };
    });
    let live = 0;
    let maxLive = 0;
    const seen = new Map<string, string>();
    h.runtime.subagents.onChange((row) => {
      const before = seen.get(row.id);
      seen.set(row.id, row.status);
      if (row.status === 'running' && before !== 'running') live++;
      if (before === 'running' && row.status !== 'running') live--;
      maxLive = Math.max(maxLive, live);
    });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    const out = await h.runtime.sendMessage(conv.id, 'map it', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    const rows = h.runtime.subagents.list(conv.id);
    expect(rows).toHaveLength(100);
    expect(rows.every((r) => r.status === 'finished')).toBe(true);
    expect(maxLive).toBeGreaterThan(1);
    expect(maxLive).toBeLessThanOrEqual(5);
    const result = textOf(lastMessage(h.server.requests.at(-1)!).content);
    expect(result).toContain('100/100 children finished.');
    const order = [...result.matchAll(/#(\d+) sub_[0-9a-f]{8} finished: R(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(order).toHaveLength(100);
    expect(order.every(([n, r]) => r === (n! - 1) * 2)).toBe(true);
    // 100 child requests + 2 parent requests, nothing more.
    expect(h.server.requests).toHaveLength(102);
  }, 120_000);

  it('refuses more than 128 items and a template without {{input}}, in words the model can act on', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('map_subagents', { prompt_template: 'x {{input}}', items: Array.from({ length: 129 }, () => 'a'), description: 'd' }),
      reply().tool('map_subagents', { prompt_template: 'no placeholder', items: ['a'], description: 'd' }),
      reply().text('ok'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    expect(textOf(lastMessage(h.server.requests[1]!).content)).toContain('at most 128 items; split the list');
    expect(textOf(lastMessage(h.server.requests[2]!).content)).toContain('prompt_template must contain {{input}}');
  });
});

describe("a child's approvals surface in its parent's conversation", () => {
  it('is answered from the UI contract, and from `deskhand runs approve` in another process', async () => {
    requireBuild();
    server = await startModelServer();
    const dataDir = tempDir('deskhand-data-');
    const work = tempDir('deskhand-work-');
    app = openHarness({ dataDir });
    const provider = { provider: 'openai' as const, model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' };
    const parent = [
      reply().tool('spawn_subagent', { prompt: 'CHILD ONE: write a.txt', description: 'writer one' }),
      reply().text('one done'),
      reply().tool('spawn_subagent', { prompt: 'CHILD TWO: write b.txt', description: 'writer two' }),
      reply().text('two done'),
    ];
    const one = [reply().tool('write_file', { path: 'a.txt', content: 'from child one\n' }), reply().text('wrote a')];
    const two = [reply().tool('write_file', { path: 'b.txt', content: 'from child two\n' }), reply().text('wrote b')];
    route({ server } as SubHarness, { 'CHILD ONE': one, 'CHILD TWO': two }, parent);
    const conv = app.runtime.createConversation({ folder: work, policy: 'read-only' });
    app.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would

    // 1. The UI contract: the request is listed under the parent's conversation, labelled with the child.
    // The parent waits here, as the app's runs do (a run nobody can answer parks with its child: park-descendants.test.ts).
    const first = app.runtime.sendMessage(conv.id, 'write a', { provider, interactive: true });
    const pending = await until(async () => (await app!.service.listPendingApprovals({})).approvals.find((a) => a.subagent));
    const child = app.runtime.subagents.list(conv.id)[0]!;
    expect(pending).toMatchObject({ conversationId: conv.id, tool: 'write_file', subagent: { id: child.id, type: 'coder', description: 'writer one', conversationId: child.conversation_id } });
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
    await app.service.decideApproval({ approvalId: pending.approvalId, decision: 'approve' });
    expect((await first).status).toBe('finished');
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('from child one\n');
    expect(app.runtime.subagents.get(child.id)).toMatchObject({ status: 'finished', result: 'wrote a' });

    // 2. The CLI, another process over the same data dir: the waiting child wakes on the store change.
    const second = app.runtime.sendMessage(conv.id, 'write b', { provider, interactive: true });
    const request = await until(async () => (await app!.service.listPendingApprovals({})).approvals.find((a) => a.subagent?.description === 'writer two'));
    const cli = await runCli(['runs', 'approve', request.approvalId, '--data-dir', dataDir]);
    expect(cli.code).toBe(0);
    expect((await second).status).toBe('finished');
    expect(readFileSync(join(work, 'b.txt'), 'utf8')).toBe('from child two\n');

    // `deskhand subagents list|show` see both children and their transcripts.
    const list = await runCli(['subagents', 'list', '--conversation', conv.id, '--data-dir', dataDir]);
    expect(list.stdout).toMatch(/sub_[0-9a-f]{8} {2}finished .*writer one/);
    expect(list.stdout).toMatch(/writer two/);
    const show = await runCli(['subagents', 'show', child.id, '--data-dir', dataDir]);
    expect(show.stdout).toContain('→ write_file');
    expect(show.stdout).toContain('wrote a');
  }, 60_000);

  it('cancels a running child from `deskhand subagents cancel` in another process', async () => {
    requireBuild();
    // The child's model call hangs until cancelled: no idle timeout may end it first while the CLI starts (slow under load).
    h = await openSubHarness({ idleTimeoutMs: 300_000 });
    const parent = [reply().tool('spawn_subagent', { prompt: 'CHILD HANG', description: 'hanger', background: true }), reply().text('started')];
    route(h, { 'CHILD HANG': [reply().hang()] }, parent);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const row = h.runtime.subagents.list(conv.id)[0]!;
    await until(async () => h!.runtime.subagents.get(row.id)!.status === 'running' || undefined);
    const cli = await runCli(['subagents', 'cancel', row.id, '--data-dir', h.dataDir]);
    expect(cli.code).toBe(0);
    // The process running it notices, and its run is stopped.
    await until(async () => (h!.store.runsForConversation(row.conversation_id).at(-1)!.status === 'aborted' ? true : undefined));
    expect(h.runtime.subagents.get(row.id)!.status).toBe('cancelled');
    expect(h.runtime.tasks.list(conv.id)[0]!.status).toBe('cancelled');
  }, 60_000);
});

async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
