/**
 * `policy explain` and the run compute a call's decision input with the same function (issue 44): for a conversation
 * held by plan mode, by a Tower mission scope, by its parent's ceilings (a subagent) and by a peer's ceiling, the
 * inspectors' reports `explain` prints for a call are the ones the run's decision folded. The run's reports are read
 * by a probe inspector registered on the runtime (first, so a deny does not end the fold before it): it sees the decision input the run built and folds it through the
 * other inspectors, so a field the run sets and explain forgets (or the other way round) shows as a difference.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, type Inspector, type InspectorReport } from '../../src/main/runtime/decision/approval-engine';
import { towerModule } from '../../src/main/services/store/modules/tower';
import { peersModule } from '../../src/main/services/store/modules/peers';
import { reply } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { firstUser, openSubHarness, route, type SubHarness } from '../subagents/harness';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

type Seen = { conversationId: string | undefined; tool: string; args: unknown; reports: Pick<InspectorReport, 'inspector' | 'verdict' | 'reasons'>[] };

/** Registers the probe on the runtime: every decision the run makes, as the other inspectors report it. */
function probe(h: SubHarness): Seen[] {
  const seen: Seen[] = [];
  const inspector: Inspector = {
    name: 'parity-probe',
    inspect(input) {
      const others = h.runtime.inspectors().filter((i) => i.name !== 'parity-probe');
      const reports = decide(input, others).inspectors.map(({ inspector, verdict, reasons }) => ({ inspector, verdict, reasons }));
      seen.push({ conversationId: input.ctx.conversationId, tool: input.tool.name, args: input.args, reports });
      return { inspector: 'parity-probe', verdict: 'pass', reasons: [] };
    },
  };
  h.runtime.addInspector(inspector, { before: 'classifier' });
  return seen;
}

/** What `policy explain` says about the same call in the same conversation. */
async function explained(h: SubHarness, conversationId: string, tool: string, args: unknown) {
  const conv = h.store.getConversation(conversationId)!;
  const r = await h.runtime.explain(tool, args, conv.policy, conv.folder, undefined, { conversationId });
  return r.inspectors.filter((i) => i.inspector !== 'parity-probe');
}

async function expectParity(h: SubHarness, seen: Seen[], conversationId: string, tool: string) {
  const call = seen.find((s) => s.conversationId === conversationId && s.tool === tool);
  expect(call, `the run decided a ${tool} call in ${conversationId}`).toBeDefined();
  const fromExplain = await explained(h, conversationId, tool, call!.args);
  expect(fromExplain).toEqual(call!.reports);
  return call!.reports;
}

describe('policy explain and the run fold the same inspector reports', () => {
  it('the app registers the holds after containment, in the order they always ran', async () => {
    h = await openSubHarness();
    expect(h.runtime.inspectors().map((i) => i.name)).toEqual(['classifier', 'containment', 'plan-mode', 'mission-scope', 'peer-ceiling', 'secrets', 'url-guard', 'taint', 'app-grants', 'confined', 'policy', 'saved-rules', 'hooks']);
  });

  it('a conversation in plan mode: the write outside the plan file is refused by both, for the same reason', async () => {
    h = await openSubHarness();
    const seen = probe(h);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.server.enqueue(reply().tool('enter_plan_mode', {}), reply().tool('write_file', { path: join(h.work, 'x.txt'), content: 'x' }), reply().text('done'));
    await h.runtime.sendMessage(conv.id, 'plan it', { provider: h.provider(), interactive: false });
    const reports = await expectParity(h, seen, conv.id, 'write_file');
    expect(reports.find((r) => r.inspector === 'plan-mode')?.verdict).toBe('deny');
  });

  it('a Tower worker: a write outside its mission scope is refused by both', async () => {
    h = await openSubHarness();
    const seen = probe(h);
    const worktree = tempDir('deskhand-parity-tree-');
    h.store.createConversation({ id: 'conv_tower', title: 'tower', folder: worktree, policy: 'high-risk' });
    h.store.createConversation({ id: 'conv_worker', title: 'worker', folder: worktree, policy: 'high-risk' });
    const tower = h.store.module(towerModule);
    tower.insertSession({ id: 'tws_1', conversation_id: 'conv_tower', repo: worktree, base_branch: 'main', base_commit: 'abc', integration_branch: 'tower/int', integration_path: worktree, objective: 'o', tests_command: null });
    tower.replaceMissions('tws_1', [{ id: 'm_1', title: 'edit src', scope: JSON.stringify(['src/**']), tasks: '[]', depends: '[]' }]);
    tower.updateMission('tws_1', 'm_1', { status: 'working', worktree, branch: 'tower/m_1' });
    tower.addAgent({ id: 'w_1', session_id: 'tws_1', role: 'worker', mission_id: 'm_1', subagent_id: 'sub_1', conversation_id: 'conv_worker' });
    h.server.enqueue(reply().tool('write_file', { path: join(worktree, 'README.md'), content: 'x' }), reply().text('done'));
    await h.runtime.sendMessage('conv_worker', 'work', { provider: h.provider(), interactive: false });
    const reports = await expectParity(h, seen, 'conv_worker', 'write_file');
    expect(reports.find((r) => r.inspector === 'mission-scope')?.verdict).toBe('deny');
  });

  it('a subagent of a parent in plan mode: its read is judged under the inherited plan mode by both', async () => {
    h = await openSubHarness();
    const seen = probe(h);
    writeFileSync(join(h.work, 'keep.txt'), 'original\n');
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    route(
      h,
      { 'CHILD TASK': [reply().tool('read_file', { path: join(h.work, 'keep.txt') }), reply().text('child done')] },
      [reply().tool('enter_plan_mode', {}), reply().tool('spawn_subagent', { prompt: 'CHILD TASK: read', description: 'read', type: 'coder' }), reply().text('parent done')],
    );
    await h.runtime.sendMessage(conv.id, 'plan it', { provider: h.provider(), interactive: false });
    const child = h.runtime.subagents.list(conv.id)[0]!;
    expect(h.server.requests.some((r) => firstUser(r).includes('CHILD TASK'))).toBe(true);
    const reports = await expectParity(h, seen, child.conversation_id, 'read_file');
    expect(reports.find((r) => r.inspector === 'plan-mode')?.reasons.join(' ')).toMatch(/plan mode/);
  });

  it('a peer\'s conversation: a call its allow list names is judged within the peer\'s ceiling by both', async () => {
    h = await openSubHarness();
    const seen = probe(h);
    h.store.module(peersModule).insert({ name: 'alice', endpoint: null, tier: 'internal', allow: JSON.stringify(['write_file']), turns_per_day: 10, tokens_per_day: 100_000, cost_per_day: null, enabled: 1 });
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.store.module(peersModule).linkConversation(conv.id, 'alice', 'ctx-1');
    h.server.enqueue(reply().tool('write_file', { path: join(h.work, 'from-peer.txt'), content: 'x' }), reply().text('done'));
    await h.runtime.sendMessage(conv.id, 'write it', { provider: h.provider(), interactive: false });
    // The call ran: explain judges it as the run did, before the file existed.
    rmSync(join(h.work, 'from-peer.txt'));
    const reports = await expectParity(h, seen, conv.id, 'write_file');
    expect(reports.find((r) => r.inspector === 'peer-ceiling')?.reasons.join(' ')).toMatch(/within peer alice's ceiling/);
  });
});
