/**
 * Spec I `customTools` per agent profile, through the real runtime and the scripted model server: a profile's own
 * custom tool is offered (and runs: the program writes a file) only in that profile's conversations, besides the
 * global custom-tools.json; a conversation without the profile is neither offered it nor able to call it; the
 * profile's allowedTools need not list its own tools; two profiles cannot claim one tool name.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { ProfileStore } from '../../src/main/services/profiles';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { closeTestWorld, makeRuntime, offeredTools, providerFor, toolResults } from './helpers';

let model: ModelServer;
let runtime: AppRuntime | null = null;
beforeEach(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await closeTestWorld(runtime, model);
  runtime = null;
});

/** A custom tool that writes its `text` argument into `file` (the program itself, so the bytes prove it ran). */
function writer(name: string, file: string) {
  const script = `${file}.mjs`;
  writeFileSync(script, "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], process.argv[3]);\nconsole.log('noted');\n");
  return { name, description: `Write a note (${name}).`, inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, command: [process.execPath, script, file, '{text}'], tier: 'low-risk' as const };
}

it("a profile's own custom tool is offered and runs only in that profile's conversations, besides the global ones", async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  writeFileSync(join(dataDir, 'custom-tools.json'), JSON.stringify({ tools: [writer('global_note', join(work, 'global.txt'))] }));
  const store = new Store(dataDir);
  const profiles = new ProfileStore(store);
  profiles.put({ name: 'reviewer', customTools: [writer('review_note', join(work, 'review.txt'))], allowedTools: ['read_file'] });
  profiles.put({ name: 'writer', customTools: [writer('draft_note', join(work, 'draft.txt'))] });
  // Two profiles cannot mean different things by one name.
  expect(() => profiles.put({ name: 'other', customTools: [writer('review_note', join(work, 'x.txt'))] })).toThrow(/"reviewer" already has a custom tool named "review_note"/);
  store.close();

  runtime = makeRuntime(dataDir);
  const send = (id: string) => runtime!.sendMessage(id, 'note it', { provider: providerFor(model), interactive: false });

  // The reviewer's conversation: its own tool is offered (from the first request: the profile loads the custom family)
  // though allowedTools lists only read_file; the global tool is not allowed there; the writer's is not its own.
  const reviewed = runtime.createConversation({ folder: work, policy: 'low-risk' });
  runtime.profiles.assign(reviewed.id, 'reviewer');
  model.enqueue(reply().tool('review_note', { text: 'looks good' }), reply().tool('draft_note', { text: 'sneaky' }), reply().text('done'));
  expect((await send(reviewed.id)).status).toBe('finished');
  const offeredThere = offeredTools(model, 0).map((t) => t.name);
  expect(offeredThere).toContain('review_note');
  expect(offeredThere).not.toContain('draft_note');
  expect(offeredThere).not.toContain('global_note');
  expect(readFileSync(join(work, 'review.txt'), 'utf8')).toBe('looks good');
  expect(toolResults(model, 2).at(-1)).toMatch(/draft_note is not available in this turn: it is a custom tool of the agent profile "writer"/);
  expect(existsSync(join(work, 'draft.txt'))).toBe(false);

  // A conversation without a profile: the global tool is there (once the custom family loads), no profile's tool is.
  const plain = runtime.createConversation({ folder: work, policy: 'low-risk' });
  runtime.setFamilies(plain.id, ['custom'], true);
  const at = model.requests.length;
  model.enqueue(reply().tool('global_note', { text: 'global' }), reply().tool('review_note', { text: 'not mine' }), reply().text('done'));
  expect((await send(plain.id)).status).toBe('finished');
  const offeredPlain = offeredTools(model, at).map((t) => t.name);
  expect(offeredPlain).toContain('global_note');
  expect(offeredPlain).not.toContain('review_note');
  expect(offeredPlain).not.toContain('draft_note');
  expect(readFileSync(join(work, 'global.txt'), 'utf8')).toBe('global');
  expect(toolResults(model, at + 2).at(-1)).toMatch(/review_note is not available in this turn: it is a custom tool of the agent profile "reviewer"/);
  expect(readFileSync(join(work, 'review.txt'), 'utf8')).toBe('looks good');
}, 60_000);

it('a profile custom tool is validated like the global file (bad names and duplicates are refused with the reason)', () => {
  const store = new Store(tempDir('deskhand-data-'));
  try {
    const profiles = new ProfileStore(store);
    expect(() => profiles.put({ name: 'bad', customTools: [{ name: 'Bad-Name', description: 'x', inputSchema: {}, command: ['true'] }] })).toThrow(/snake_case/);
    const t = { name: 'twice', description: 'x', inputSchema: {}, command: ['true'] };
    expect(() => profiles.put({ name: 'dup', customTools: [t, t] })).toThrow(/two custom tools of the profile have the same name/);
    expect(profiles.list()).toEqual([]);
  } finally {
    store.close();
  }
});
