/**
 * The change ledger through the contract (host/app/groups/changes.ts, docs/rewind.md), over the real app service,
 * runtime, tools, store and scripted model server: listChanges lists a turn's paths with their kind and counts,
 * getChangeDiff diffs one from the kept bytes, rewind's dry run changes nothing, a files rewind puts the bytes back,
 * a conversation rewind keeps the later messages as a branch the model no longer gets, and a redo brings the turn's
 * files back. Effects are proven by the file system's bytes and the model server's recorded requests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractEvent } from '../../src/shared/contract';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;

const finished = (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload;

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-changes-data-');
  work = tempDir('deskhand-changes-work-');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
});

afterEach(async () => {
  await h.service.shutdown();
  h.close();
  await server.close();
});

async function turn(conversationId: string, text: string): Promise<void> {
  await h.service.sendMessage({ conversationId, text });
  await h.waitFor(finished);
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  throw new Error('expected a failure');
}

describe('changes and rewind through the contract', () => {
  it('lists a turn, diffs a path, dry-runs, rewinds files and conversation, and redoes', async () => {
    const notes = join(work, 'notes.txt');
    const made = join(work, 'new.txt');
    writeFileSync(notes, 'one\ntwo\n');
    const conv = (await h.service.createConversation({ folder: work, policy: 'high-risk' })).id;
    server.enqueue(reply().tool('read_file', { path: 'notes.txt' }), reply().tool('write_file', { path: 'notes.txt', content: 'one\nTWO\nthree\n' }).tool('write_file', { path: 'new.txt', content: 'new\n' }), reply().text('Done.'));
    await turn(conv, 'change things');
    expect(readFileSync(notes, 'utf8')).toBe('one\nTWO\nthree\n');

    const listed = await h.service.listChanges({ conversationId: conv });
    expect(listed.turns).toHaveLength(1);
    const t = listed.turns[0]!;
    expect(t.turn).toBe(1);
    expect(t.changes.map((c) => [c.path, c.kind, c.added, c.removed])).toEqual([
      [made, 'created', 1, 0],
      [notes, 'modified', 2, 1],
    ]);
    const diff = await h.service.getChangeDiff({ conversationId: conv, messageId: t.messageId, path: notes, texts: true });
    expect(diff.diff).toContain('-two');
    expect(diff.diff).toContain('+TWO');
    expect(diff).toMatchObject({ oldText: 'one\ntwo\n', newText: 'one\nTWO\nthree\n' });
    expect((await failure(h.service.getChangeDiff({ conversationId: conv, messageId: t.messageId, path: join(work, 'other.txt'), texts: false }))).code).toBe('not_found');

    // The dry run names each path and what would happen to it, and changes nothing.
    const dry = await h.service.rewind({ conversationId: conv, to: t.messageId, mode: 'files', dryRun: true, redo: false });
    expect(dry.files!.items.map((i) => [i.path, i.action])).toEqual([
      [made, 'removed'],
      [notes, 'restored'],
    ]);
    expect(readFileSync(notes, 'utf8')).toBe('one\nTWO\nthree\n');
    expect(existsSync(made)).toBe(true);

    // Files only: bytes back, the created file gone, the conversation unchanged.
    const done = await h.service.rewind({ conversationId: conv, to: t.messageId, mode: 'files', dryRun: false, redo: false });
    expect(done.conversation).toBeNull();
    expect(readFileSync(notes, 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(made)).toBe(false);
    expect((await h.service.getMessages({ conversationId: conv })).items.filter((i) => i.kind === 'user')).toHaveLength(1);
    expect((await h.service.listChanges({ conversationId: conv })).lastRewind).toMatchObject({ redo: false, redoable: true, to: t.messageId });

    // Redo: the turn's files come back.
    await h.service.rewind({ conversationId: conv, redo: true, mode: 'both', dryRun: false });
    expect(readFileSync(notes, 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(made, 'utf8')).toBe('new\n');
    expect((await h.service.listChanges({ conversationId: conv })).lastRewind).toMatchObject({ redo: true, redoable: false });

    // Conversation only: files stay, the turn becomes a kept branch the next request no longer holds.
    const conversationOnly = await h.service.rewind({ conversationId: conv, to: t.messageId, mode: 'conversation', dryRun: false, redo: false });
    expect(conversationOnly.files).toBeNull();
    expect(conversationOnly.conversation!.branch).toMatch(/^branch_/);
    expect(readFileSync(notes, 'utf8')).toBe('one\nTWO\nthree\n');
    expect((await h.service.getMessages({ conversationId: conv })).items).toHaveLength(0);
    server.enqueue(reply().text('Fresh.'));
    await turn(conv, 'start over');
    const sent = JSON.stringify(server.requests.at(-1));
    expect(sent).toContain('start over');
    expect(sent).not.toContain('change things');
  });

  it('an approval carries whether its call can be taken back: a write in the folder can, one outside cannot', async () => {
    const outside = tempDir('deskhand-changes-outside-');
    const conv = (await h.service.createConversation({ folder: work, policy: 'read-only' })).id;
    server.enqueue(reply().tool('write_file', { path: 'inside.txt', content: 'a\n' }).tool('write_file', { path: join(outside, 'outside.txt'), content: 'b\n' }), reply().text('ok'));
    await h.service.sendMessage({ conversationId: conv, text: 'write two files' });
    const pending = await h.waitFor((e) => e.event === 'approvalsChanged' && e.payload.approvals.length === 2 && e.payload.approvals);
    const byPath = Object.fromEntries(pending.map((a) => [(a.args as { path: string }).path, a.data as { reversibility: { kind: string; words: string } }]));
    expect(byPath['inside.txt']!.reversibility).toMatchObject({ kind: 'undoable', words: 'Can be undone from the change list.' });
    expect(byPath[join(outside, 'outside.txt')]!.reversibility.kind).toBe('irreversible');
    expect(byPath[join(outside, 'outside.txt')]!.reversibility.words).toMatch(/^Cannot be taken back: it writes outside your folders/);
    // And what the call will do, in one sentence from its effects (runtime/decision/call-sentence.ts; the card shows it).
    expect((byPath['inside.txt'] as { doing?: string }).doing).toBe('Writes inside.txt.');
    expect((byPath[join(outside, 'outside.txt')] as { doing?: string }).doing).toBe(`Writes ${join(outside, 'outside.txt')} outside your folders.`);
    for (const a of pending) await h.service.decideApproval({ approvalId: a.approvalId, decision: 'deny' });
    await h.waitFor(finished);
  });

  it('refuses bad targets with a clear error', async () => {
    const conv = (await h.service.createConversation({ folder: work, policy: 'high-risk' })).id;
    expect(await failure(h.service.rewind({ conversationId: conv, redo: true, mode: 'both', dryRun: false }))).toMatchObject({ code: 'not_found', message: expect.stringContaining('no rewind to undo') });
    expect(await failure(h.service.rewind({ conversationId: conv, to: 'm999', redo: false, mode: 'both', dryRun: false }))).toMatchObject({ code: 'not_found', message: expect.stringContaining('m999') });
    expect(await failure(h.service.rewind({ conversationId: conv, redo: false, mode: 'both', dryRun: false }))).toMatchObject({ code: 'usage' });
  });
});
