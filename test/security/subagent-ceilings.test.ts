/**
 * Plan mode and the other ceilings through subagents (issue 29, mechanism 11): a child of a parent in plan mode is in
 * plan mode too — more strictly, it writes nothing — whether spawned by spawn_subagent or map_subagents, under the
 * parent's highest policy, and from its next step on when the parent enters plan mode after it started. Effects are
 * proven by the files (which must not exist or must keep their bytes) and by what the child's next request says.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/main/runtime/tool';
import { planFileFor } from '../../src/main/tools/plan';
import { inheritedCeiling } from '../../src/main/tools/subagents/hold';
import { peersModule } from '../../src/main/services/store/modules/peers';
import { reply, type RecordedRequest, type ReplyInput } from '../support/model-server';
import { firstUser, lastMessage, messagesOf, openSubHarness, route, textOf, toolNames, type SubHarness } from '../subagents/harness';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

const isChild = (req: RecordedRequest) => firstUser(req).includes('CHILD TASK');
const childRequests = () => h.server.requests.filter(isChild);
/** Every tool result the children received, as one text. */
const childResults = () =>
  childRequests()
    .flatMap((r) => messagesOf(r).filter((m) => m.role === 'tool'))
    .map((m) => textOf(m.content))
    .join('\n');

interface Attempt {
  name: string;
  call(work: string, plan: string): ReplyInput;
  /** The file the attempt would create or change, and its bytes before (null: must not exist). */
  target(work: string, plan: string): { path: string; before: string | null };
}

const ATTEMPTS: Attempt[] = [
  { name: 'write_file a new file', call: (w) => reply().tool('write_file', { path: join(w, 'new.txt'), content: 'written\n' }), target: (w) => ({ path: join(w, 'new.txt'), before: null }) },
  { name: 'edit_file an existing file', call: (w) => reply().tool('edit_file', { path: join(w, 'keep.txt'), old_string: 'original', new_string: 'changed' }), target: (w) => ({ path: join(w, 'keep.txt'), before: 'original\n' }) },
  { name: 'write_file the parent\'s plan file', call: (_w, p) => reply().tool('write_file', { path: p, content: '# the child wrote the plan\n' }), target: (_w, p) => ({ path: p, before: null }) },
  { name: 'execute_command touch', call: (w) => reply().tool('execute_command', { command: `touch ${join(w, 'touched')}`, description: 'touch' }), target: (w) => ({ path: join(w, 'touched'), before: null }) },
  { name: 'execute_command redirect', call: (w) => reply().tool('execute_command', { command: `echo hi > ${join(w, 'redirected')}`, description: 'write' }), target: (w) => ({ path: join(w, 'redirected'), before: null }) },
  { name: 'execute_command sh -c', call: (w) => reply().tool('execute_command', { command: `sh -c 'printf x > ${join(w, 'viash')}'`, description: 'write' }), target: (w) => ({ path: join(w, 'viash'), before: null }) },
  { name: 'rm an existing file', call: (w) => reply().tool('rm', { paths: [join(w, 'keep.txt')] }), target: (w) => ({ path: join(w, 'keep.txt'), before: 'original\n' }) },
];

function expectUntouched(t: { path: string; before: string | null }): void {
  if (t.before === null) expect(existsSync(t.path), `${t.path} must not exist`).toBe(false);
  else expect(readFileSync(t.path, 'utf8')).toBe(t.before);
}

describe('a child of a parent in plan mode is in plan mode', () => {
  it.each(ATTEMPTS)('spawn_subagent (coder, parent high-risk): $name is refused', async (attempt) => {
    h = await openSubHarness();
    writeFileSync(join(h.work, 'keep.txt'), 'original\n');
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    const plan = planFileFor(h.work, conv.id);
    route(
      h,
      { 'CHILD TASK': [attempt.call(h.work, plan), reply().text('child done')] },
      [reply().tool('enter_plan_mode', {}), reply().tool('spawn_subagent', { prompt: 'CHILD TASK: make the change', description: 'change', type: 'coder' }), reply().text('parent done')],
    );
    const out = await h.runtime.sendMessage(conv.id, 'plan it', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    expectUntouched(attempt.target(h.work, plan));
    const [first] = childRequests();
    // The child is not offered what its parent's plan mode would refuse.
    expect(toolNames(first!)).toContain('read_file');
    expect(toolNames(first!)).not.toContain('write_file');
    expect(toolNames(first!)).not.toContain('edit_file');
    expect(toolNames(first!)).not.toContain('rm');
    // And what it calls anyway is refused, with a reason it can act on: plan mode, or (for a tool its parent's plan mode
    // had already taken out of the parent's own set when it spawned, such as rm) the child's ceiling of its parent's tools.
    expect(textOf(lastMessage(childRequests()[1]!).content)).toMatch(/plan mode is on in the conversation that started this subagent|a subagent gets at most its parent's tools/);
  });

  it('a read-only command still runs in the child', async () => {
    h = await openSubHarness();
    writeFileSync(join(h.work, 'keep.txt'), 'original\n');
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    route(
      h,
      { 'CHILD TASK': [reply().tool('execute_command', { command: `cat ${join(h.work, 'keep.txt')}`, description: 'read' }), reply().text('child done')] },
      [reply().tool('enter_plan_mode', {}), reply().tool('spawn_subagent', { prompt: 'CHILD TASK: read', description: 'read', type: 'coder' }), reply().text('parent done')],
    );
    await h.runtime.sendMessage(conv.id, 'plan it', { provider: h.provider(), interactive: false });
    expect(childResults()).toContain('original');
  });

  it('map_subagents: every child is held, none writes', async () => {
    h = await openSubHarness();
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    const queues: Record<string, ReplyInput[]> = {};
    for (const item of ['alpha', 'beta', 'gamma']) {
      queues[`CHILD TASK ${item}`] = [
        reply().tool('write_file', { path: join(h.work, `${item}.txt`), content: item }).tool('execute_command', { command: `touch ${join(h.work, `${item}.touched`)}`, description: 'touch' }),
        reply().text(`${item} done`),
      ];
    }
    route(h, queues, [reply().tool('enter_plan_mode', {}), reply().tool('map_subagents', { prompt_template: 'CHILD TASK {{input}}: write your file', items: ['alpha', 'beta', 'gamma'], description: 'fan out' }), reply().text('parent done')]);
    const out = await h.runtime.sendMessage(conv.id, 'plan it', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    for (const item of ['alpha', 'beta', 'gamma']) {
      expect(existsSync(join(h.work, `${item}.txt`))).toBe(false);
      expect(existsSync(join(h.work, `${item}.touched`))).toBe(false);
    }
    expect(h.runtime.subagents.list(conv.id)).toHaveLength(3);
  });

  it('a parent that enters plan mode after its background child started holds that child from its next step on', async () => {
    h = await openSubHarness();
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    // Two gates order the runs: the parent enters plan mode only after the child's first write, and the child's
    // next calls come only once the parent's stored state says plan mode is on.
    const gate = (name: string, ready: () => boolean, said: string) =>
      defineTool({
        name,
        description: 'Test gate.',
        params: z.object({}).strict(),
        risk: 'read-only',
        disclosure: 'internal',
        async execute(_a, ctx) {
          for (let i = 0; i < 400 && !ctx.signal.aborted; i++) {
            if (ready()) return { output: said };
            await new Promise((r) => setTimeout(r, 25));
          }
          return { output: 'gave up' };
        },
      });
    h.runtime.registry.add([
      gate('wait_for_parent_plan', () => !!(JSON.parse(h.store.getConversation(conv.id)!.state) as { slots?: { plan_mode?: unknown } }).slots?.plan_mode, 'parent is planning'),
      gate('wait_for_child_write', () => existsSync(join(h.work, 'before.txt')), 'child wrote'),
    ]);
    route(
      h,
      {
        'CHILD TASK': [
          // Before plan mode: the child may write (this file must exist: the ceiling is not applied retroactively).
          reply().tool('write_file', { path: join(h.work, 'before.txt'), content: 'before\n' }),
          reply().tool('wait_for_parent_plan', {}),
          reply().tool('write_file', { path: join(h.work, 'after.txt'), content: 'after\n' }).tool('execute_command', { command: `touch ${join(h.work, 'after.touched')}`, description: 'touch' }),
          reply().text('child done'),
        ],
      },
      [
        reply().tool('spawn_subagent', { prompt: 'CHILD TASK: work', description: 'work', type: 'coder', background: true }),
        reply().tool('wait_for_child_write', {}),
        reply().tool('enter_plan_mode', {}),
        reply().tool('wait_subagents', { until: 'all' }),
        reply().text('parent done'),
      ],
    );
    const out = await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    expect(childResults()).toContain('parent is planning');
    expect(readFileSync(join(h.work, 'before.txt'), 'utf8')).toBe('before\n');
    expect(existsSync(join(h.work, 'after.txt'))).toBe(false);
    expect(existsSync(join(h.work, 'after.touched'))).toBe(false);
  });
});

describe('the inherited ceiling is the strictest of the ancestors, read fresh', () => {
  it('lowest policy, taint and plan mode of the parent as they are now; null for a conversation that is nobody\'s child', async () => {
    h = await openSubHarness();
    const root = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    route(
      h,
      {
        'CHILD TASK': [reply().text('child done')],
      },
      [reply().tool('spawn_subagent', { prompt: 'CHILD TASK: delegate', description: 'delegate', type: 'coder' }), reply().text('parent done')],
    );
    await h.runtime.sendMessage(root.id, 'go', { provider: h.provider(), interactive: false });
    const [child] = h.runtime.subagents.tree(root.id);
    const lookup = (id: string) => inheritedCeiling(h.runtime.records, h.runtime.subagents, id);
    expect(lookup(root.id)).toBeNull();
    expect(lookup(child!.conversation_id)).toEqual({ planMode: null, policy: 'high-risk', tainted: false, peer: null });
    // The person lowers the root's policy and the root reads something untrusted after the children were made.
    h.store.updateConversation(root.id, { policy: 'read-only', tainted: 1 });
    expect(lookup(child!.conversation_id)).toEqual({ planMode: null, policy: 'read-only', tainted: true, peer: null });
    const state = JSON.parse(h.store.getConversation(root.id)!.state) as { slots?: Record<string, unknown> };
    h.store.updateConversation(root.id, { state: JSON.stringify({ ...state, slots: { ...state.slots, plan_mode: { planFile: '/x/.deskhand/plans/plan-c.md', enteredAt: 1 } } }) });
    expect(lookup(child!.conversation_id)!.planMode).toEqual({ from: root.id, planFile: '/x/.deskhand/plans/plan-c.md' });
    // A child's own state does not lift what its parent holds it to.
    h.store.updateConversation(child!.conversation_id, { policy: 'high-risk' });
    expect(lookup(child!.conversation_id)!.policy).toBe('read-only');
    // The root is a peer's conversation (issue 43, H1): its child inherits the peer's ceiling, which judges context.
    h.store.module(peersModule).linkConversation(root.id, 'alice', 'ctx-1');
    expect(lookup(child!.conversation_id)!.peer).toEqual({ peer: 'alice', tier: 'public', allow: [] });
  });
});
