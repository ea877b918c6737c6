/**
 * `deskhand acp` (issue 37) driven through the built binary's stdio by clients no one here wrote: the ACP SDK's own
 * client side (test/support/acp.ts) and acp-factory, an independent client library. Effects are proven by the
 * effect: the file's bytes, the scripted model server's next request, the rule and the call's record in the store,
 * the process ending when the editor goes away.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentFactory } from 'acp-factory';
import { BIN, cliEnv, useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';
import { rawAll } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { acpArgs, startAcp, updatesOf } from '../support/acp';


const world = useCliWorld('acp');
const PROBE = resolve(__dirname, '../support/probe-mcp-server.mjs');
// A budget per CLI process started (a loaded 2-core machine takes seconds each), not a timing assertion.
const calls = (n: number): number => n * 25_000;

const lastToolMessage = (): string => {
  const messages = (world.server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
  return JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? null);
};

describe('deskhand acp with the SDK client', () => {
  it('initializes, opens a session that is a Deskhand conversation, streams the reply, and exits when the editor closes', async () => {
    world.server.enqueue(reply().text('Hello from ').text('Deskhand.'));
    const acp = await startAcp(world);
    expect(acp.initialized).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true } }, agentInfo: { name: 'deskhand' } });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    expect(sessionId).toMatch(/^conv_/);
    const done = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'say hello' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(acp.agentText()).toContain('Hello from Deskhand.');
    // The person's words reached the model, and the conversation is in the store under the editor's folder.
    expect(JSON.stringify(world.server.requests.at(-1)!.body)).toContain('say hello');
    expect(rawAll<{ folder: string }>(world.dataDir, 'SELECT folder FROM conversations WHERE id = ?', sessionId)).toEqual([{ folder: world.work }]);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('session/fork makes a new session with the whole history; the source stays as it was', async () => {
    world.server.enqueue(reply().text('FIRST-REPLY'), reply().text('FORK-REPLY'));
    const acp = await startAcp(world);
    expect(acp.initialized).toMatchObject({ agentCapabilities: { sessionCapabilities: { fork: {} } } });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'FIRST-QUESTION' }] });
    const forked = (await acp.agent.request('session/fork' as never, { sessionId, cwd: world.work, mcpServers: [] } as never)) as { sessionId: string };
    expect(forked.sessionId).toMatch(/^conv_/);
    expect(forked.sessionId).not.toBe(sessionId);
    await acp.agent.request('session/prompt', { sessionId: forked.sessionId, prompt: [{ type: 'text', text: 'SECOND-QUESTION' }] });
    const sent = JSON.stringify(world.server.requests.at(-1)!.body);
    for (const t of ['FIRST-QUESTION', 'FIRST-REPLY', 'SECOND-QUESTION']) expect(sent).toContain(t);
    expect(rawAll<{ n: number }>(world.dataDir, 'SELECT count(*) AS n FROM messages WHERE conversation_id = ?', sessionId)).toEqual([{ n: 2 }]);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('a write asks through session/request_permission with the diff; allowing it writes the bytes and records the editor as who approved', async () => {
    world.server.enqueue(reply().tool('write_file', { path: 'hello.txt', content: 'hi from the editor\n' }), reply().text('Wrote it.'));
    const acp = await startAcp(world, { clientName: 'zed-test', onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }) });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    const done = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write hello.txt' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(readFileSync(join(world.work, 'hello.txt'), 'utf8')).toBe('hi from the editor\n');

    expect(acp.permissions).toHaveLength(1);
    const asked = acp.permissions[0]!;
    expect(asked.sessionId).toBe(sessionId);
    expect(asked.options.map((o) => o.kind)).toEqual(expect.arrayContaining(['allow_once', 'reject_once']));
    expect(asked.toolCall).toMatchObject({ kind: 'edit', status: 'pending', locations: [{ path: join(world.work, 'hello.txt') }] });
    expect(asked.toolCall.content).toContainEqual(expect.objectContaining({ type: 'diff', path: join(world.work, 'hello.txt'), oldText: null, newText: 'hi from the editor' }));

    const calls = updatesOf(acp, 'tool_call');
    expect(calls).toContainEqual(expect.objectContaining({ toolCallId: asked.toolCall.toolCallId, kind: 'edit', status: 'pending' }));
    const finished = updatesOf(acp, 'tool_call_update').filter((u) => u.toolCallId === asked.toolCall.toolCallId).at(-1)!;
    expect(finished).toMatchObject({ status: 'completed' });
    // The completed call keeps its diff beside its output.
    expect(finished.content).toContainEqual(expect.objectContaining({ type: 'diff', newText: 'hi from the editor' }));
    // Who cleared the call, as the transcript shows it: a person, in the editor that said its name in initialize.
    expect(rawAll(world.dataDir, 'SELECT cleared_by, via FROM call_notes WHERE cleared_by IS NOT NULL')).toEqual([{ cleared_by: 'person', via: 'the editor (zed-test)' }]);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('a denial with a reason reaches the model and nothing is written; "always allow" saves its rule and the next write does not ask', async () => {
    world.server.enqueue(reply().tool('write_file', { path: 'no.txt', content: 'x' }), reply().text('Understood.'));
    let answer: 'deny' | 'always' = 'deny';
    const acp = await startAcp(world, {
      onPermission: (req) =>
        answer === 'deny'
          ? { outcome: { outcome: 'selected', optionId: 'reject_once', _meta: { reason: 'not in this folder, please' } } }
          : { outcome: { outcome: 'selected', optionId: req.options.find((o) => o.kind === 'allow_always')!.optionId } },
    });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    expect((await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write no.txt' }] })).stopReason).toBe('end_turn');
    expect(existsSync(join(world.work, 'no.txt'))).toBe(false);
    expect(lastToolMessage()).toContain('not in this folder, please');
    expect(updatesOf(acp, 'tool_call_update').at(-1)).toMatchObject({ status: 'failed' });

    answer = 'always';
    world.server.enqueue(reply().tool('write_file', { path: 'a.txt', content: 'a' }), reply().tool('write_file', { path: 'b.txt', content: 'b' }), reply().text('Both.'));
    expect((await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write a and b' }] })).stopReason).toBe('end_turn');
    expect(readFileSync(join(world.work, 'a.txt'), 'utf8')).toBe('a');
    expect(readFileSync(join(world.work, 'b.txt'), 'utf8')).toBe('b');
    // Asked for the denied write and for a.txt; the saved rule cleared b.txt.
    expect(acp.permissions).toHaveLength(2);
    const alwaysOption = acp.permissions[1]!.options.find((o) => o.kind === 'allow_always')!;
    expect(alwaysOption.name).toMatch(/Always allow/);
    const rules = await world.cli(['rules', 'list', '--json', '--data-dir', world.dataDir]);
    expect(rules.stdout).toContain('write_file');
    expect(await acp.close()).toBe(0);
  }, calls(3));

  it('the turn\'s changes reach the editor as diffs, whatever made them: a sandboxed command\'s edit arrives with its whole old and new text', async () => {
    writeFileSync(join(world.work, 'log.txt'), 'first\n');
    writeFileSync(join(world.work, 'gone.txt'), 'bye\n');
    world.server.enqueue(reply().tool('execute_command', { command: 'echo second >> log.txt && rm gone.txt' }), reply().text('Appended.'));
    const acp = await startAcp(world, { onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }) });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    const done = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'append' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(readFileSync(join(world.work, 'log.txt'), 'utf8')).toBe('first\nsecond\n');
    const summary = updatesOf(acp, 'tool_call').find((u) => u.toolCallId.startsWith('changes:'))!;
    expect(summary).toMatchObject({ kind: 'edit', status: 'completed', title: expect.stringMatching(/^2 files changed \(undo: deskhand rewind conv_\S+ --to m\d+\)$/) });
    expect(summary.content).toContainEqual({ type: 'diff', path: join(world.work, 'log.txt'), oldText: 'first\n', newText: 'first\nsecond\n' });
    expect(summary.content).toContainEqual({ type: 'diff', path: join(world.work, 'gone.txt'), oldText: 'bye\n', newText: '' });
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('the todo list arrives as the plan, a command streams its output into its tool call, and the prompt reports the turn\'s usage', async () => {
    world.server.enqueue(
      reply().tool('manage_todos', { todos: [{ title: 'Look around', status: 'in_progress', priority: 'high' }, { title: 'Report', status: 'pending' }] }),
      reply().tool('execute_command', { command: 'printf "line one\\n"; sleep 1.5; printf "line two\\n"', description: 'two lines' }).usage({ input: 120, output: 7 }),
      reply().text('All done.'),
    );
    const acp = await startAcp(world, { onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }) });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    const done = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan and run' }] });
    expect(done.stopReason).toBe('end_turn');
    expect(updatesOf(acp, 'plan').at(-1)!.entries).toEqual([
      { content: 'Look around', priority: 'high', status: 'in_progress' },
      { content: 'Report', priority: 'medium', status: 'pending' },
    ]);
    const command = updatesOf(acp, 'tool_call').find((u) => u.kind === 'execute')!;
    expect(command).toBeTruthy();
    const last = updatesOf(acp, 'tool_call_update').filter((u) => u.toolCallId === command.toolCallId).at(-1)!;
    expect(last.status).toBe('completed');
    expect(JSON.stringify(last.content)).toContain('line two');
    // Streamed while it ran: an update showed the first line before the second existed.
    const live = updatesOf(acp, 'tool_call_update').filter((u) => u.toolCallId === command.toolCallId && u.status === 'in_progress' && JSON.stringify(u.content ?? null).includes('line one'));
    expect(live.length).toBeGreaterThan(0);
    expect(JSON.stringify(live[0]!.content)).not.toContain('line two');
    expect((done._meta as { deskhand: { usage: { inputTokens: number } } }).deskhand.usage.inputTokens).toBeGreaterThanOrEqual(120);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('refuses what it does not take with a sentence: an image in the prompt, a second prompt while one runs', async () => {
    world.server.enqueue(reply().delay(3000).text('Slow.'));
    const acp = await startAcp(world);
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    await expect(acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/text and text files only/) });
    const first = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
    await expect(acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] })).rejects.toMatchObject({ code: -32600, message: expect.stringMatching(/already running/) });
    expect((await first).stopReason).toBe('end_turn');
    expect(world.server.requests).toHaveLength(1);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('connects the MCP servers the editor passes: their tools reach the model, every call asks, and a stdio server runs in the sandbox', async () => {
    copyFileSync(PROBE, join(world.work, 'editor-probe.mjs'));
    const outside = join(tempDir('deskhand-acp-outside-'), 'planted.txt');
    const report = join(world.work, 'report.json');
    world.server.enqueue(reply().tool('mcp__probe__probe', { report, outside }), reply().text('Probed.'));
    const acp = await startAcp(world, { onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }) });
    const { sessionId } = await acp.agent.request('session/new', {
      cwd: world.work,
      mcpServers: [
        { name: 'probe', command: process.execPath, args: [join(world.work, 'editor-probe.mjs')], env: [{ name: 'GREETING', value: 'hi' }] },
        { name: 'nothing here', command: '', args: [], env: [] },
      ],
    });
    expect(acp.agentText()).toMatch(/"nothing here" has no command\. It is not connected\./);
    expect((await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'probe it' }] })).stopReason).toBe('end_turn');
    // When the server did not connect, say why (the line the session got, the agent's stderr, what the model was told).
    const why = `${acp.agentText()}\n--- stderr:\n${acp.stderr()}\n--- last tool result: ${lastToolMessage()}`;
    expect(acp.agentText(), why).not.toMatch(/did not start|could not be connected/);
    expect(acp.permissions.map((p) => p.toolCall.rawInput), why).toEqual([{ report, outside }]);
    // The server's answer reached the model; it ran inside the sandbox and could not write outside the workspace.
    expect(lastToolMessage()).toContain('pid1=ok: bwrap');
    const found = JSON.parse(readFileSync(report, 'utf8')) as { pid1: string; env: Record<string, string> };
    expect(found.pid1).toBe('ok: bwrap');
    expect(found.env.GREETING).toBe('hi');
    expect(existsSync(outside)).toBe(false);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('with the editor\'s file system offered, file tools read its unsaved buffer and write through it, after the same containment and approval', async () => {
    writeFileSync(join(world.work, 'notes.txt'), 'disk version\n');
    const buffers = new Map<string, string>([[join(world.work, 'notes.txt'), 'unsaved line\nmore\n']]);
    const asked: string[] = [];
    const written: { path: string; content: string }[] = [];
    const acp = await startAcp(world, {
      onPermission: (req) => ({ outcome: { outcome: 'selected', optionId: req.toolCall.rawInput && JSON.stringify(req.toolCall.rawInput).includes('.ssh') ? 'reject_once' : 'allow_once' } }),
      fs: {
        read: (path) => {
          asked.push(path);
          const text = buffers.get(path);
          if (text === undefined) throw new Error(`not open: ${path}`);
          return text;
        },
        write: (path, content) => void (written.push({ path, content }), buffers.set(path, content)),
      },
    });
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    world.server.enqueue(reply().tool('read_file', { path: 'notes.txt' }), reply().text('Read.'));
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read notes' }] });
    const seen = lastToolMessage();
    expect(seen).toContain('unsaved line');
    expect(seen).not.toContain('disk version');
    expect(seen).toMatch(/unsaved buffer in the editor \(test-editor\)/);

    world.server.enqueue(reply().tool('edit_file', { path: 'notes.txt', old_string: 'unsaved line', new_string: 'edited line' }), reply().text('Edited.'));
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'edit notes' }] });
    // The approval's diff was of the buffer, and the change went to the editor; the disk was not touched by Deskhand.
    const editAsk = acp.permissions.find((p) => p.toolCall.kind === 'edit')!;
    expect(editAsk.toolCall.content).toContainEqual(expect.objectContaining({ type: 'diff', oldText: expect.stringContaining('unsaved line'), newText: expect.stringContaining('edited line') }));
    expect(written).toEqual([{ path: join(world.work, 'notes.txt'), content: 'edited line\nmore\n' }]);
    expect(readFileSync(join(world.work, 'notes.txt'), 'utf8')).toBe('disk version\n');

    // Containment first: a read of a hidden path asks (denied here), and the editor is never asked for it.
    mkdirSync(join(world.home, '.ssh'), { recursive: true });
    writeFileSync(join(world.home, '.ssh', 'id_ed25519'), 'PRIVATE');
    world.server.enqueue(reply().tool('read_file', { path: join(world.home, '.ssh', 'id_ed25519') }), reply().text('Could not.'));
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read the key' }] });
    expect(asked.some((p) => p.includes('.ssh'))).toBe(false);
    expect(acp.permissions.some((p) => JSON.stringify(p.toolCall.rawInput).includes('.ssh'))).toBe(true);
    expect(JSON.stringify(world.server.requests.at(-1)!.body)).not.toContain('PRIVATE');
    expect(await acp.close()).toBe(0);
  }, calls(4));

  it('session/cancel stops a run in flight: the prompt ends "cancelled" and the run is recorded as stopped', async () => {
    world.server.enqueue(reply().hang());
    const acp = await startAcp(world);
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'think forever' }] });
    await until(() => world.server.requests.length === 1, 'the model request', 30_000);
    await acp.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(rawAll<{ status: string }>(world.dataDir, 'SELECT status FROM runs WHERE conversation_id = ?', sessionId)).toEqual([{ status: 'aborted' }]);
    expect(await acp.close()).toBe(0);
  }, calls(2));

  it('a question degrades honestly: one line says where to answer, `deskhand runs answer` from another process answers it, and the prompt finishes', async () => {
    const question = { questions: [{ question: 'Which port?', header: 'Port', options: [{ label: '3000', description: 'the default' }, { label: '8080', description: 'the proxy' }] }] };
    world.server.enqueue(reply().tool('ask_user_question', question), reply().text('Using 8080.'));
    const acp = await startAcp(world);
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'start the server' }] });
    await until(() => /runs answer (\S+)/.test(acp.agentText()), 'the line about the question', 30_000);
    const id = /runs answer (\S+)/.exec(acp.agentText())![1]!;
    expect(acp.agentText()).toMatch(/waiting for a question the editor cannot show/);
    expect(acp.permissions).toHaveLength(0);
    const answered = await world.cli(['runs', 'answer', id, '--value', '{"answers": {"Which port?": "8080"}}', '--data-dir', world.dataDir]);
    expect(answered.code, answered.stderr).toBe(0);
    expect((await prompt).stopReason).toBe('end_turn');
    expect(lastToolMessage()).toContain('A: 8080');
    expect(await acp.close()).toBe(0);
  }, calls(3));

  it('session/load resumes a conversation made elsewhere (`deskhand run`): the editor sees its history and the model gets it with the next prompt', async () => {
    world.server.enqueue(reply().text('The first answer.'));
    const first = await world.run('the first question');
    expect(first.code, first.stderr).toBe(0);
    const conversationId = String(first.events.find((e) => e.type === 'run.started')!.conversationId);

    world.server.enqueue(reply().text('The second answer.'));
    const acp = await startAcp(world);
    await acp.agent.request('session/load', { sessionId: conversationId, cwd: world.work, mcpServers: [] });
    expect(updatesOf(acp, 'user_message_chunk').map((u) => (u.content as { text: string }).text)).toEqual(['the first question']);
    expect(acp.agentText()).toContain('The first answer.');
    expect((await acp.agent.request('session/prompt', { sessionId: conversationId, prompt: [{ type: 'text', text: 'and the second?' }] })).stopReason).toBe('end_turn');
    const sent = JSON.stringify(world.server.requests.at(-1)!.body);
    expect(sent).toContain('the first question');
    expect(sent).toContain('The first answer.');
    expect(sent).toContain('and the second?');

    await expect(acp.agent.request('session/load', { sessionId: 'conv_doesnotexist', cwd: world.work, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    await expect(acp.agent.request('session/prompt', { sessionId: 'conv_doesnotexist', prompt: [{ type: 'text', text: 'x' }] })).rejects.toMatchObject({ code: -32002 });
    expect(await acp.close()).toBe(0);
  }, calls(3));
});

describe('deskhand acp with acp-factory (an independent client library)', () => {
  it('spawns it, runs a session with a write it approves through its permission callback, and closes it', async () => {
    world.server.enqueue(reply().tool('write_file', { path: 'factory.txt', content: 'made via acp-factory\n' }), reply().text('Done by factory.'));
    AgentFactory.register('deskhand-test', { command: process.execPath, args: [BIN, ...acpArgs(world)], env: { ...cliEnv({ HOME: world.home }) } as Record<string, string> });
    const seen: string[] = [];
    const agent = await AgentFactory.spawn('deskhand-test', {
      permissionMode: 'callback',
      onPermissionRequest: async (request) => {
        seen.push(request.toolCall.title ?? '');
        return { outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'allow_once')!.optionId } };
      },
    });
    try {
      expect(agent.capabilities?.loadSession).toBe(true);
      const session = await agent.createSession(world.work);
      let text = '';
      for await (const update of session.prompt('write factory.txt')) {
        if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') text += update.content.text;
      }
      expect(text).toContain('Done by factory.');
      expect(seen).toHaveLength(1);
      expect(readFileSync(join(world.work, 'factory.txt'), 'utf8')).toBe('made via acp-factory\n');
    } finally {
      await agent.close();
    }
  }, calls(2));
});
