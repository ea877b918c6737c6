/**
 * "Always allow" can add a workspace root: a file-tool write that asks only because it lies outside the roots offers
 * the nearest existing folder above it as a root of the conversation (never `/`, the home folder or a folder holding
 * it, a sensitive folder, Deskhand's data); approving with always adds it to the conversation's persisted roots, and
 * later writes there are inside the workspace. Proven in the engine, and through the runtime with the scripted model
 * server (what the store holds, what was written on disk, what still asks).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import { PersistentConversationState } from '../../src/main/runtime/context/conversation-state';
import { PathGuard } from '../../src/main/runtime/decision/path-guard';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { Runtime } from '../../src/main/runtime/runtime';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { Store } from '../../src/main/services/store/store';
import { createFileFamily } from '../../src/main/tools/files';
import { ROOT_OFFER_PREFIX, describeAlways, offeredRoot } from '../../src/shared/always-allow';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

const real = (p: string) => realpathSync(p);

describe('the offer', () => {
  const base = real(tempDir('deskhand-offer-'));
  const home = join(base, 'home');
  const ws = join(base, 'ws');
  const data = join(base, 'appdata', 'deskhand');
  const outside = join(base, 'outside');
  for (const d of [home, join(home, '.ssh'), join(home, '.aws'), ws, data, outside, join(outside, 'sub')]) mkdirSync(d, { recursive: true });
  const guard = new PathGuard({ cwd: ws, workspaceRoots: [ws], dataDir: data, home });
  const offer = (p: string) => guard.check(p, 'write').rootOffer ?? null;

  it.each([
    ['a file in a folder outside', join(outside, 'a.txt'), outside],
    ['a file in a nested folder outside', join(outside, 'sub', 'b.txt'), join(outside, 'sub')],
    ['a file under folders that do not exist yet', join(outside, 'new', 'deeper', 'c.txt'), outside],
    ['a folder to create', join(outside, 'made'), outside],
  ])('%s: the nearest existing folder above it', (_what, path, folder) => {
    expect(guard.check(path, 'write').alwaysAsk).toMatch(/outside the workspace roots/);
    expect(offer(path)).toBe(folder);
  });

  it.each([
    ['/ itself', '/deskhand-no-such-dir-x/y.txt'],
    ['the home folder', join(home, 'notes.txt')],
    ['a folder holding the home folder', join(base, 'x.txt')],
    ['a sensitive folder (~/.ssh)', join(home, '.ssh', 'config')],
    ['a sensitive folder (~/.aws)', join(home, '.aws', 'new-file')],
    ["Deskhand's data dir", join(data, 'x.txt')],
    ["a folder holding Deskhand's data", join(base, 'appdata', 'x.txt')],
    ['a folder inside the data dir', join(data, 'logs', 'x.txt')],
  ])('no root is offered for %s', (_what, path) => {
    expect(guard.check(path, 'write').alwaysAsk).not.toBeNull();
    expect(offer(path)).toBeNull();
  });

  it('a path inside the workspace offers nothing (it does not ask)', () => {
    expect(guard.check(join(ws, 'a.txt'), 'write').alwaysAsk).toBeNull();
    expect(offer(join(ws, 'a.txt'))).toBeNull();
  });
});

describe('the decision', () => {
  const ws = real(tempDir('deskhand-ws-'));
  const outside = real(tempDir('deskhand-outside-'));
  const other = real(tempDir('deskhand-other-'));
  const data = real(tempDir('deskhand-data-'));
  const tools = createFileFamily({ dataDir: data, secrets: new SecretRedactor() }).tools;
  const tool = (name: string): ToolDefinition => tools.find((t) => t.name === name)!;
  const decideFor = (name: string, args: Record<string, unknown>, roots = [ws]) =>
    decideCall({ tool: tool(name), args: tool(name).params.parse(args), policy: 'high-risk', tainted: false, ctx: { cwd: ws, workspaceRoots: roots, dataDir: data } });

  it.each([
    ['write_file', { path: join(outside, 'a.txt'), content: 'x' }],
    ['mkdir', { path: join(outside, 'dir') }],
    ['edit_file', { path: join(outside, 'e.txt'), old_string: 'a', new_string: 'b' }],
  ])('%s outside asks under high-risk and offers the folder as a root, never a rule', async (name, args) => {
    if (name === 'edit_file') writeFileSync(join(outside, 'e.txt'), 'a');
    const d = await decideFor(name, args);
    expect(d.decision).toBe('ask');
    expect(d.rootOffer).toBe(outside);
    expect(d.rulePattern).toBeNull();
    // With the folder as a root, the same call runs unattended under a policy that clears it.
    expect((await decideFor(name, args, [ws, outside])).decision).toBe('allow');
  });

  it('a call whose writes lie in two folders outside, or that asks for another reason too, offers no root', async () => {
    writeFileSync(join(outside, 'src.txt'), 'x');
    // mv changes both places: two folders, no single root to offer.
    expect((await decideFor('mv', { source: join(outside, 'src.txt'), destination: join(other, 'dst.txt') })).rootOffer).toBeNull();
    // cp only reads its source (cleared by high-risk): the destination's folder is offered.
    expect((await decideFor('cp', { source: join(outside, 'src.txt'), destination: join(other, 'dst.txt') })).rootOffer).toBe(other);
    expect((await decideFor('write_file', { path: join(homedir(), '.ssh', 'x'), content: 'x' })).rootOffer).toBeNull();
  });

  it('what every host shows before saving', () => {
    const pattern = `${ROOT_OFFER_PREFIX}${outside}`;
    expect(offeredRoot(pattern)).toBe(outside);
    expect(describeAlways('write_file', pattern)).toBe(`add ${outside} as a workspace root of this conversation (changes inside it no longer ask; the sandbox can write there)`);
    expect(offeredRoot('git status')).toBeNull();
  });
});

describe('through the runtime', () => {
  let server: ModelServer;
  let dataDir: string;
  let store: Store;
  beforeEach(async () => {
    server = await startModelServer();
    dataDir = tempDir('deskhand-data-');
    store = new Store(dataDir);
  });
  afterEach(async () => {
    store.close();
    await server.close();
  });

  it('approve always adds the root: the next write there runs unattended, a write elsewhere outside still asks', async () => {
    const work = real(tempDir('deskhand-work-'));
    const outside = real(tempDir('deskhand-outside-'));
    const elsewhere = real(tempDir('deskhand-elsewhere-'));
    const registry = new ToolRegistry(createFileFamily({ dataDir, secrets: new SecretRedactor() }).tools);
    const rt = new Runtime({ store, dataDir, registry, retryBaseMs: 10, idleTimeoutMs: 5000 });
    const provider = { provider: 'openai' as const, model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' };
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    const events: RunEvent[] = [];

    server.enqueue(reply().tool('write_file', { path: join(outside, 'a.txt'), content: 'first' }));
    const parked = await rt.sendMessage(conv.id, 'write outside', { provider, interactive: false, onEvent: (e) => events.push(e) });
    expect(parked.status).toBe('parked');
    const asked = events.find((e) => e.type === 'approval.requested');
    expect(asked).toMatchObject({ tool: 'write_file', alwaysPattern: `${ROOT_OFFER_PREFIX}${outside}` });
    expect(store.getApproval(parked.approvalIds[0]!)?.always_pattern).toBe(`${ROOT_OFFER_PREFIX}${outside}`);
    expect(existsSync(join(outside, 'a.txt'))).toBe(false);

    server.enqueue(
      reply().tool('write_file', { path: join(outside, 'b.txt'), content: 'second' }),
      reply().tool('write_file', { path: join(elsewhere, 'c.txt'), content: 'third' }),
    );
    const next = await rt.decideApproval(parked.approvalIds[0]!, { approved: true, always: true }, { provider, interactive: false });
    // The conversation's persisted roots include the folder; no rule was saved.
    const roots = new PersistentConversationState(work, store.getConversation(conv.id)!.state).workspaceRoots;
    expect(roots).toEqual([work, outside]);
    expect(store.hasRule('write_file', outside)).toBe(false);
    expect(store.hasRule('write_file', `${ROOT_OFFER_PREFIX}${outside}`)).toBe(false);
    // The approved write and the next write there ran; the write elsewhere outside asks again.
    expect(readFileSync(join(outside, 'a.txt'), 'utf8')).toBe('first');
    expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('second');
    expect(next?.status).toBe('parked');
    expect(next?.approvalIds).toHaveLength(1);
    const again = store.getApproval(next!.approvalIds[0]!)!;
    expect(again.always_pattern).toBe(`${ROOT_OFFER_PREFIX}${elsewhere}`);
    expect(existsSync(join(elsewhere, 'c.txt'))).toBe(false);
  });
});
