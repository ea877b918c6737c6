/**
 * Lifecycle hooks end to end through the built CLI (issue 47, docs/hooks.md): the person's hooks in the data folder's
 * settings.json, in Claude Code's schema, driven by `deskhand run` against the scripted model server. Each effect is
 * proved by an effect: a file a command would have written, a hook's log, the model's recorded requests, the run's
 * events.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { approvals, toolResults, useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';
import { projectMessages } from '../../src/main/host/app/projections';
import { recordsOf } from '../../src/main/runtime/records';
import { Store } from '../../src/main/services/store/store';
import type { MessageItem } from '../../src/shared/contract';

const w = useCliWorld('hooks', { policy: 'high-risk' });
const NODE = JSON.stringify(process.execPath);

/** The person's settings.json with this `hooks` object (Claude Code's shape). */
function personalHooks(hooks: Record<string, unknown>): void {
  writeFileSync(join(w.dataDir, 'settings.json'), JSON.stringify({ hooks }, null, 2));
}

/** A hook script (node, reading the event's JSON on stdin) in the home folder, outside the workspace. */
function script(name: string, body: string): string {
  const path = join(w.home, name);
  writeFileSync(path, `const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));\n${body}\n`);
  return `${NODE} ${JSON.stringify(path)}`;
}

const cmd = (command: string, timeout?: number) => ({ type: 'command', command, ...(timeout ? { timeout } : {}) });

/** The conversation as the UI gets it, from the data folder the CLI wrote. */
function storedItems(conversationId: string): MessageItem[] {
  const store = new Store(w.dataDir);
  try {
    return projectMessages(recordsOf(store), conversationId, { title: (t) => t, summarize: () => null });
  } finally {
    store.close();
  }
}

it('a PreToolUse hook that exits 2 blocks the command (it never runs) and its reason reaches the model', async () => {
  const block = script('block.js', `if (JSON.stringify(input.tool_input).includes('BANNED')) { process.stderr.write('Reason-Kq71: commands with BANNED are not allowed here'); process.exit(2); }`);
  personalHooks({ PreToolUse: [{ matcher: 'Bash', hooks: [cmd(block)] }] });
  w.server.enqueue(reply().tool('execute_command', { command: 'touch blocked-proof.txt # BANNED' }, { id: 'c1' }).tool('execute_command', { command: 'touch allowed-proof.txt' }, { id: 'c2' }));
  w.server.enqueue(reply().text('ok'));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  // The blocked command did not run; the other one (the same policy, no hook objection) did.
  expect(existsSync(join(w.work, 'blocked-proof.txt'))).toBe(false);
  expect(existsSync(join(w.work, 'allowed-proof.txt'))).toBe(true);
  // The model's next request carries the hook's reason as the call's result.
  const second = JSON.stringify(w.server.requests[1]!.body);
  expect(second).toContain('Reason-Kq71: commands with BANNED are not allowed here');
  const decision = r.events.find((e) => e.type === 'tool.decision' && e.callId !== undefined && e.decision === 'deny');
  expect(decision, JSON.stringify(r.events)).toBeDefined();
}, 120_000);

it('a JSON permissionDecision "ask" parks a call the policy would have allowed; the reason is on the approval', async () => {
  const ask = script('ask.js', `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'Ask-Reason-Zt40' } }));`);
  const notified = join(w.home, 'notified.log');
  const notify = script('notify.js', `require('node:fs').appendFileSync(${JSON.stringify(notified)}, input.hook_event_name + ': ' + input.message + '\\n');`);
  personalHooks({ PreToolUse: [{ matcher: 'Write|Bash', hooks: [cmd(ask)] }], Notification: [{ matcher: 'permission_prompt', hooks: [cmd(notify)] }] });
  w.server.enqueue(reply().tool('execute_command', { command: 'touch parked-proof.txt' }));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(3);
  // The Notification hook heard that the run waits for a person (the CLI waited for it before exiting).
  expect(readFileSync(notified, 'utf8')).toMatch(/^Notification: Deskhand needs your permission: /);
  expect(existsSync(join(w.work, 'parked-proof.txt'))).toBe(false);
  const asked = approvals(r);
  expect(asked).toHaveLength(1);
  expect(JSON.stringify(asked[0]!.reasons)).toContain('Ask-Reason-Zt40');
}, 120_000);

it('a hook\'s allow never loosens what Deskhand asks about (a write outside the workspace still asks)', async () => {
  const allow = script('allow.js', `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'fine by me' } }));`);
  personalHooks({ PreToolUse: [{ matcher: '*', hooks: [cmd(allow)] }] });
  const outside = join(w.home, 'outside.txt');
  w.server.enqueue(reply().tool('write_file', { path: outside, content: 'x' }));
  const r = await w.run('go', { policy: 'read-only' });
  expect(r.code, r.stderr).toBe(3);
  expect(existsSync(outside)).toBe(false);
  expect(approvals(r)).toHaveLength(1);
}, 120_000);

it('PostToolUse logs each tool name; UserPromptSubmit context reaches the request; SessionStart, Stop and SessionEnd fire', async () => {
  const log = join(w.home, 'events.log');
  const append = (name: string, expr: string) => script(`${name}.js`, `require('node:fs').appendFileSync(${JSON.stringify(log)}, ${expr} + '\\n');`);
  const context = script('context.js', `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'Context-Marker-Hv22 for ' + input.prompt } }));`);
  // Stop: the first time, send the model back to work with a reason; the second time (stop_hook_active), let it stop.
  const stop = script('stop.js', `require('node:fs').appendFileSync(${JSON.stringify(log)}, 'Stop active=' + input.stop_hook_active + '\\n'); if (!input.stop_hook_active) { process.stdout.write(JSON.stringify({ decision: 'block', reason: 'Keep-Going-Pq18: run the tests too' })); }`);
  personalHooks({
    PostToolUse: [{ matcher: '', hooks: [cmd(script('post.js', `require('node:fs').appendFileSync(${JSON.stringify(log)}, 'Post ' + input.tool_name + ' ' + input.deskhand.claude_tool_name + '\\n');`))] }],
    UserPromptSubmit: [{ hooks: [cmd(context)] }],
    SessionStart: [{ matcher: 'startup', hooks: [cmd(append('start', 'input.hook_event_name + " " + input.source'))] }],
    SessionEnd: [{ hooks: [cmd(append('end', 'input.hook_event_name + " " + input.reason'))] }],
    Stop: [{ hooks: [cmd(stop)] }],
  });
  writeFileSync(join(w.work, 'a.txt'), 'hello\n');
  w.server.enqueue(reply().tool('read_file', { path: 'a.txt' }));
  w.server.enqueue(reply().text('first done'));
  w.server.enqueue(reply().tool('ls', { path: '.' }));
  w.server.enqueue(reply().text('really done'));
  const r = await w.run('prompt-Yy5');
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.stringify(w.server.requests[0]!.body)).toContain('Context-Marker-Hv22 for prompt-Yy5');
  // The Stop hook's reason is the model's next message.
  expect(JSON.stringify(w.server.requests[2]!.body)).toContain('Keep-Going-Pq18: run the tests too');
  expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['SessionStart startup', 'Post read_file Read', 'Stop active=false', 'Post ls LS', 'Stop active=true', 'SessionEnd finished']);
}, 120_000);

it('a hook that hangs is stopped at its timeout and noted; one that fails is noted; the run goes on', async () => {
  const hang = script('hang.js', 'setTimeout(() => {}, 600_000);');
  const fail = script('fail.js', `process.stderr.write('Broken-Hook-Ux3'); process.exit(1);`);
  personalHooks({ PreToolUse: [{ matcher: 'Read', hooks: [cmd(hang, 1)] }], PostToolUse: [{ matcher: 'Read', hooks: [cmd(fail)] }], UserPromptSubmit: [{ hooks: [cmd(fail)] }] });
  writeFileSync(join(w.work, 'a.txt'), 'hello\n');
  w.server.enqueue(reply().tool('read_file', { path: 'a.txt' }));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  const decision = r.events.find((e) => e.type === 'tool.decision');
  expect(JSON.stringify(decision)).toMatch(/timed out and was stopped; ignored/);
  expect(toolResults(r)[0]).toContain('hello');
  expect(toolResults(r)[0]).toMatch(/failed \(exit 1\): Broken-Hook-Ux3; ignored/);
  // The failing UserPromptSubmit hook left its line with the message; the message was sent.
  const sent = JSON.stringify((w.server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user'));
  expect(sent).toContain('go\\n\\n[UserPromptSubmit hooks]\\n(hook `');
  expect(sent).toMatch(/fail\.js[^\n]*` failed \(exit 1\): Broken-Hook-Ux3; ignored\)/);
}, 120_000);

it('PreCompact hears a manual compaction (summarize_context) with its focus', async () => {
  const log = join(w.home, 'compact.log');
  personalHooks({ PreCompact: [{ matcher: 'manual', hooks: [cmd(script('compact.js', `require('node:fs').appendFileSync(${JSON.stringify(log)}, input.trigger + ' ' + input.custom_instructions + '\\n');`))] }] });
  w.server.enqueue(reply().tool('summarize_context', { focus: 'Focus-Wq2' }));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(log, 'utf8')).toBe('manual Focus-Wq2\n');
}, 120_000);

it('a failing Stop hook\'s line is a note for the person (stored as the Stop hooks\', never sent to the model); the run finishes; a failing SessionEnd hook\'s line is on stderr', async () => {
  const fail = script('stop-fail.js', `process.stderr.write('Stop-Broken-Yy5'); process.exit(1);`);
  const endFail = script('end-fail.js', `process.stderr.write('End-Broken-Hh6'); process.exit(1);`);
  personalHooks({ Stop: [{ hooks: [cmd(fail)] }], SessionEnd: [{ hooks: [cmd(endFail)] }] });
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  // SessionEnd comes when the session is over: its failing hook's line is on Deskhand's stderr.
  expect(r.stderr).toMatch(/deskhand: SessionEnd hooks: hook `[^`]*end-fail\.js[^`]*` failed \(exit 1\): End-Broken-Hh6; ignored/);
  const finished = r.events.find((e) => e.type === 'run.finished');
  expect(finished?.status).toBe('finished');
  const again = await w.run('and now?', { flags: ['--conversation', String(finished!.conversationId)] });
  expect(again.code, again.stderr).toBe(0);
  // The model never reads it (Claude Code shows such a line to the user only); the person's messages stay theirs.
  expect(JSON.stringify(w.server.requests[1]!.body)).not.toContain('Stop-Broken-Yy5');
  const items = storedItems(String(finished!.conversationId));
  expect(items.filter((i) => i.kind === 'user').map((i) => (i as { text: string }).text)).toEqual(['go', 'and now?']);
  const notes = items.filter((i) => i.kind === 'hook');
  expect(notes.map((n) => [n.event, n.toModel])).toEqual([['Stop', false], ['Stop', false]]);
  expect(notes[0]!.text).toMatch(/^hook `[^`]*stop-fail\.js[^`]*` failed \(exit 1\): Stop-Broken-Yy5; ignored$/);
}, 120_000);

it('a failing PreCompact hook\'s line is a note for the person, not in summarize_context\'s result; the compaction goes on', async () => {
  const fail = script('compact-fail.js', `process.stderr.write('Compact-Broken-Pp8'); process.exit(1);`);
  personalHooks({ PreCompact: [{ hooks: [cmd(fail)] }] });
  w.server.enqueue(reply().tool('summarize_context', {}));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  expect(toolResults(r)[0]).toMatch(/^Nothing to compact: the history is only the last turns\.$/);
  for (const q of w.server.requests) expect(JSON.stringify(q.body)).not.toContain('Compact-Broken-Pp8');
  const notes = storedItems(String(r.events.find((e) => e.type === 'run.finished')!.conversationId)).filter((i) => i.kind === 'hook');
  expect(notes).toHaveLength(1);
  expect(notes[0]).toMatchObject({ event: 'PreCompact', toModel: false });
  expect(notes[0]!.text).toMatch(/^hook `[^`]*compact-fail\.js[^`]*` failed \(exit 1\): Compact-Broken-Pp8; ignored$/);
}, 120_000);
