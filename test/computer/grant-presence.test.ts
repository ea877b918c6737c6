/**
 * Computer use with nobody watching (issue 43, item 12): a time-limited app grant is the approval only for a run a
 * person is present for. The engine's decision for a high-risk computer_input into an app granted input for 10
 * minutes, as a table over every policy × present or not × tainted or not; then the runtime's own judgement of
 * presence: the same call in an unattended run (a scheduled fire, a wake-up, `deskhand run` without a terminal) and
 * in a peer's conversation (interactive, but the peer drives it) parks, and the app is never typed into, while the
 * person's interactive run types.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import type { AppGrants } from '../../src/main/runtime/decision/inspector';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { Runtime } from '../../src/main/runtime/runtime';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import type { ComputerUse } from '../../src/main/services/computer/index';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { Store } from '../../src/main/services/store/store';
import { createComputerInput } from '../../src/main/tools/computer/act';
import { peerCeilingHold } from '../../src/main/tools/peers/hold';
import type { Policy } from '../../src/shared/tools';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

/** zenity granted input for the next 10 minutes (a time-limited grant), nothing else. */
const timedGrant = (): AppGrants => ({
  isGranted: (app, cap) => app === 'zenity' && cap === 'input',
  endOf: (app, cap) => (app === 'zenity' && cap === 'input' ? Date.now() + 10 * 60_000 : undefined),
});

function fakeComputer() {
  const typed: string[] = [];
  const computer = {
    input: async (_runId: string, req: { text?: string }) => {
      typed.push(req.text ?? '');
      return { done: `typed ${req.text?.length ?? 0} characters`, before: null, after: null };
    },
    describeRef: () => null,
  } as unknown as ComputerUse;
  return { computer, typed };
}

type Expect = 'allow' | 'ask';
/** What each policy decides for the call: [present untainted, present tainted, absent untainted, absent tainted]. */
const TABLE: Record<Policy, [Expect, Expect, Expect, Expect]> = {
  // "none" clears nothing, grants included.
  none: ['ask', 'ask', 'ask', 'ask'],
  // The grant is the approval with the person present; with nobody present the policy decides (it does not clear
  // high-risk), and a tainted run's egress asks.
  'read-only': ['allow', 'allow', 'ask', 'ask'],
  'low-risk': ['allow', 'allow', 'ask', 'ask'],
  // high-risk clears a high-risk call as it clears every other one; tainted, with nobody present, it asks.
  'high-risk': ['allow', 'allow', 'allow', 'ask'],
};

const rows = Object.entries(TABLE).flatMap(([policy, want]) =>
  ([
    [true, false],
    [true, true],
    [false, false],
    [false, true],
  ] as const).map(([present, tainted], i) => ({ policy: policy as Policy, present, tainted, want: want[i]! })),
);

describe('a time-limited grant approves computer_input only with a person present', () => {
  const dir = tempDir('deskhand-presence-');
  const tool = createComputerInput(fakeComputer().computer) as unknown as ToolDefinition;
  it.each(rows)('policy $policy, present $present, tainted $tainted → $want', async ({ policy, present, tainted, want }) => {
    const d = await decideCall({ tool, args: { app: 'zenity', text: 'Ada' }, policy, tainted, ctx: { cwd: dir, workspaceRoots: [dir], dataDir: dir }, grants: timedGrant(), personPresent: present });
    expect(d.decision).toBe(want);
    const reasons = d.reasons.join('\n');
    if (want === 'allow' && present) expect(reasons).toMatch(/"zenity" is granted input until \d\d:\d\d UTC \(a time-limited grant\): the grant is the approval/);
    if (!present) expect(reasons).not.toMatch(/the grant is the approval/);
    if (!present && policy !== 'none' && !tainted && want === 'ask') expect(reasons).toMatch(/nobody is present to watch this run/);
    if (!present && tainted) expect(reasons).toMatch(/untrusted content/);
  });

  it('a decision that does not say whether anyone is present counts nobody', async () => {
    const d = await decideCall({ tool, args: { app: 'zenity', text: 'Ada' }, policy: 'read-only', tainted: false, ctx: { cwd: dir, workspaceRoots: [dir], dataDir: dir }, grants: timedGrant() });
    expect(d.decision).toBe('ask');
  });
});

describe('the runtime judges presence', () => {
  let model: ModelServer;
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) s.close();
    await model?.close();
  });

  async function world() {
    model = await startModelServer();
    const dataDir = tempDir('deskhand-data-');
    const work = tempDir('deskhand-work-');
    const store = new Store(dataDir);
    stores.push(store);
    const fake = fakeComputer();
    const runtime = new Runtime({ store, dataDir, registry: new ToolRegistry([createComputerInput(fake.computer) as unknown as ToolDefinition]), grants: timedGrant(), retryBaseMs: 10, idleTimeoutMs: 5000 });
    const provider: ProviderConfig = { provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' };
    return { runtime, store, work, typed: fake.typed, provider };
  }

  it("the person's interactive run types into the granted app (positive control)", async () => {
    const w = await world();
    const conv = w.runtime.createConversation({ folder: w.work, policy: 'read-only' });
    model.enqueue(reply().tool('computer_input', { app: 'zenity', text: 'Ada' }), reply().text('Typed.'));
    const out = await w.runtime.sendMessage(conv.id, 'type Ada', { provider: w.provider, interactive: true });
    expect(out.status).toBe('finished');
    expect(w.typed).toEqual(['Ada']);
  });

  it('an unattended run (scheduled, a wake-up, no terminal) parks on it: nothing is typed', async () => {
    const w = await world();
    const conv = w.runtime.createConversation({ folder: w.work, policy: 'read-only' });
    model.enqueue(reply().tool('computer_input', { app: 'zenity', text: 'Ada' }));
    const out = await w.runtime.sendMessage(conv.id, 'type Ada', { provider: w.provider, interactive: false });
    expect(out.status).toBe('parked');
    expect(w.typed).toEqual([]);
    const asked = w.store.getApproval(out.approvalIds[0]!)!;
    expect(asked.tool).toBe('computer_input');
    expect(asked.reasons).toContain('nobody is present to watch this run');
  });

  it("a peer's conversation (interactive, but the peer drives it) does not type either", async () => {
    const w = await world();
    const conv = w.runtime.createConversation({ folder: w.work, policy: 'read-only' });
    w.runtime.addHold(peerCeilingHold((id) => (id === conv.id ? { peer: 'alice', tier: 'private', allow: ['computer_input'] } : null)));
    model.enqueue(reply().tool('computer_input', { app: 'zenity', text: 'Ada' }), reply().text('Could not.'));
    const stop = new AbortController();
    const running = w.runtime.sendMessage(conv.id, 'type Ada', { provider: w.provider, interactive: true, signal: stop.signal });
    // Interactive: the run waits for a person instead of parking; the request is there, and nothing was typed.
    let pending: string[] = [];
    for (let i = 0; i < 200 && !pending.length; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pending = w.store.pendingApprovals().filter((a) => a.tool === 'computer_input').map((a) => a.id);
    }
    expect(pending).toHaveLength(1);
    expect(w.typed).toEqual([]);
    stop.abort();
    await running.catch(() => undefined);
    expect(w.typed).toEqual([]);
  });
});
