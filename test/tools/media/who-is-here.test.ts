/** who_is_here over a real store: other runs running or parked in a folder, and what they wrote there recently. */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StorePresence } from '../../../src/main/services/presence/store-presence';
import { Store } from '../../../src/main/services/store/store';
import { createWhoIsHere } from '../../../src/main/tools/media/who-is-here';
import { createFileFamily } from '../../../src/main/tools/files';
import { makeContext, tempDir } from '../../support/tool-context';

let store: Store;
let work: string;
beforeEach(() => {
  store = new Store(tempDir('deskhand-who-data-'));
  work = tempDir('deskhand-who-work-');
});
afterEach(() => store.close());

function run(id: string, folder: string, status: 'running' | 'parked' | 'finished', writes: { tool: string; args: object }[] = []) {
  const conv = store.createConversation({ id: `conv_${id}`, title: `Conversation ${id}`, folder, policy: 'read-only' });
  store.createRun({ id: `run_${id}`, conversation_id: conv.id, policy: 'read-only', provider: 'openai-compatible', model: 'm', base_url: null });
  store.updateRun(`run_${id}`, { status, owner_pid: status === 'running' ? process.pid : null });
  writes.forEach((w, i) => {
    const tc = `tc_${id}_${i}`;
    store.insertToolCall({ id: tc, run_id: `run_${id}`, step: 1, position: i, call_id: `c${i}`, tool: w.tool, args: JSON.stringify(w.args), args_sha256: 'x', risk: null, decision: 'allow', reasons: '[]', status: 'done' });
    store.updateToolCall(tc, { finished_at: Date.now() });
  });
}

it('lists other runs in the folder, whether they are writing there, and leaves out finished runs and itself', async () => {
  run('writer', work, 'running', [{ tool: 'write_file', args: { path: 'src/app.ts' } }, { tool: 'read_file', args: { path: 'README.md' } }]);
  run('waiting', join(work, 'sub'), 'parked');
  run('done', work, 'finished', [{ tool: 'write_file', args: { path: 'x' } }]);
  run('elsewhere', tempDir('deskhand-who-other-'), 'running');
  // Writing is the tools' own fact (facts.writes): write_file declares it, read_file does not.
  const files = createFileFamily({ dataDir: tempDir('deskhand-who-files-'), secrets: { matches: () => [] } as never }).tools;
  const tool = createWhoIsHere(new StorePresence(store, (name) => files.find((t) => t.name === name)?.facts?.writes === true));
  const ctx = { ...makeContext(work), runId: 'run_writer' };
  const asOther = { ...makeContext(work), runId: 'run_me' };
  const out = (await tool.execute({}, asOther)).output;
  expect(out).toContain('2 other runs');
  expect(out).toMatch(/"Conversation writer" \(conv_writer\).*running \(pid \d+\); writing — 1 change/);
  expect(out).toContain('write_file src/app.ts (done,');
  expect(out).not.toContain('README.md');
  expect(out).toMatch(/"Conversation waiting".*waiting for an approval; not writing/);
  expect(out).not.toContain('Conversation done');
  expect(out).not.toContain('Conversation elsewhere');
  // The writer asking about itself sees only the other one.
  expect((await tool.execute({}, ctx)).output).toContain('1 other run in or around');
  expect((await tool.execute({ path: tempDir('deskhand-who-empty-') }, asOther)).output).toMatch(/^Nobody else is working in /);
});
