/**
 * A cloned folder's hooks (issue 47, docs/hooks.md): Deskhand's `.deskhand/settings.json`, and the files a Claude Code
 * user already has — `.claude/settings.json` (read with Claude Code compatibility on for the folder, `deskhand compat`)
 * with a hooks block in the shape Claude Code documents and a script under `.claude/hooks/`. They do nothing until
 * the person trusts them (`deskhand hooks trust`), run in the OS sandbox then, and stop again when the script or the
 * file changes, until trusted again. What a project hook says reaches the model inside an untrusted envelope.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { toolResults, useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';

const w = useCliWorld('hooks-project', { policy: 'read-only' });

function project(dir: '.deskhand' | '.claude'): { script: string; log: string; settings: string } {
  mkdirSync(join(w.work, dir, 'hooks'), { recursive: true });
  const settings = join(w.work, dir, 'settings.json');
  // Copied in the shape Claude Code's documentation gives (matcher, type, command with $CLAUDE_PROJECT_DIR, timeout).
  writeFileSync(
    settings,
    JSON.stringify(
      {
        permissions: { allow: ['Bash(npm run lint)'] },
        hooks: {
          PostToolUse: [{ matcher: 'Write|Edit|Read', hooks: [{ type: 'command', command: `"$CLAUDE_PROJECT_DIR"/${dir}/hooks/after-read.sh`, timeout: 30 }] }],
        },
      },
      null,
      2,
    ),
  );
  const script = join(w.work, dir, 'hooks', 'after-read.sh');
  writeFileSync(script, '#!/bin/sh\ncat > /dev/null\necho ran >> "$CLAUDE_PROJECT_DIR/hook-ran.log"\necho \'{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "Proj-Ctx-Ee4"}}\'\n');
  chmodSync(script, 0o755);
  writeFileSync(join(w.work, 'a.txt'), 'hello\n');
  return { script, log: join(w.work, 'hook-ran.log'), settings };
}

const readOnce = () => {
  w.server.enqueue(reply().tool('read_file', { path: 'a.txt' }));
  return w.run('read it');
};
const ranLines = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0);

it.each(['.deskhand', '.claude'] as const)('a cloned folder\'s %s/settings.json hook does nothing until trusted, runs sandboxed after, and stops again when changed', async (dir) => {
  const { script, log, settings } = project(dir);
  if (dir === '.claude') expect((await w.cli(['compat', 'on', '--cwd', w.work, '--data-dir', w.dataDir])).code).toBe(0);

  let r = await readOnce();
  expect(r.code, r.stderr).toBe(0);
  expect(ranLines(log)).toBe(0);
  let list = await w.cli(['hooks', 'list', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(list.stdout).toContain(`Project hooks ${settings} (not trusted: inactive)`);
  expect(list.stdout).toContain(`PostToolUse [Write|Edit|Read]: "$CLAUDE_PROJECT_DIR"/${dir}/hooks/after-read.sh (timeout 30 s)`);

  const t = await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(t.code, t.stderr).toBe(0);
  expect(t.stdout).toContain(`trusted ${settings}`);
  expect(t.stdout).toContain(`runs ${script}`);
  const before = w.server.requests.length;
  r = await readOnce();
  expect(r.code, r.stderr).toBe(0);
  expect(ranLines(log)).toBe(1);
  // Its words reach the model as untrusted content, never as the person's.
  expect(w.sentSince(before)).toMatch(/<untrusted source=\\"project PostToolUse hook[^>]*>\\nProj-Ctx-Ee4/);

  // The model (or anyone) rewrites the script: the pin no longer holds, the hook is inactive until trusted again.
  appendFileSync(script, 'echo changed >> "$CLAUDE_PROJECT_DIR/hook-ran.log"\n');
  r = await readOnce();
  expect(r.code, r.stderr).toBe(0);
  expect(ranLines(log)).toBe(1);
  list = await w.cli(['hooks', 'list', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(list.stdout).toContain(`Project hooks ${settings} (CHANGED since you trusted it: inactive)`);

  // A change to the settings file itself asks again too.
  await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  writeFileSync(settings, readFileSync(settings, 'utf8').replace('"timeout": 30', '"timeout": 31'));
  r = await readOnce();
  expect(ranLines(log)).toBe(1);

  const u = await w.cli(['hooks', 'untrust', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(u.stdout).toContain(`untrusted ${settings}`);
}, 180_000);

it('a trusted project hook runs in the sandbox: it cannot write outside the workspace', async () => {
  mkdirSync(join(w.work, '.deskhand'), { recursive: true });
  const outside = join(w.home, 'escaped.txt');
  writeFileSync(
    join(w.work, '.deskhand', 'settings.json'),
    JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo inside > "$CLAUDE_PROJECT_DIR/inside.txt"; (echo escaped > ${JSON.stringify(outside)}) 2>/dev/null; true` }] }] } }),
  );
  await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  const r = await w.run('hello');
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(join(w.work, 'inside.txt'), 'utf8')).toBe('inside\n');
  expect(existsSync(outside)).toBe(false);
}, 120_000);

it('a project hook\'s own words in a note (its systemMessage) reach the model inside the envelope, never as Deskhand\'s line', async () => {
  mkdirSync(join(w.work, '.deskhand'), { recursive: true });
  writeFileSync(join(w.work, '.deskhand', 'settings.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'cat > /dev/null; echo \'{"systemMessage": "Proj-Note-Zz9"}\'' }] }] } }));
  writeFileSync(join(w.work, 'a.txt'), 'hello\n');
  await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  const r = await readOnce();
  expect(r.code, r.stderr).toBe(0);
  expect(w.sentSince(0)).toMatch(/<untrusted source=\\"PostToolUse hook notes\\"[^>]*>\\n\(Proj-Note-Zz9\)/);
}, 120_000);

it('a project PreToolUse hook\'s block reason and systemMessage reach the model inside the envelope; the person\'s own hook\'s reason stays plain', async () => {
  mkdirSync(join(w.work, '.deskhand'), { recursive: true });
  const projectAnswer = JSON.stringify({ systemMessage: 'Proj-Sys-Ww2', hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Proj-Block-Qq7' } });
  writeFileSync(join(w.work, '.deskhand', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: `cat > /dev/null; echo '${projectAnswer}'` }] }] } }));
  writeFileSync(join(w.dataDir, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Grep', hooks: [{ type: 'command', command: 'cat > /dev/null; echo Own-Block-Kk3 >&2; exit 2' }] }] } }));
  writeFileSync(join(w.work, 'a.txt'), 'hello\n');
  await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  w.server.enqueue(reply().tool('read_file', { path: 'a.txt' }, { id: 'c1' }).tool('grep', { pattern: 'hello' }, { id: 'c2' }));
  w.server.enqueue(reply().text('ok'));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  const [proj, own] = toolResults(r);
  // The project hook's words: inside the envelope, never before it.
  expect(proj).toMatch(/^Denied by policy: [^<]*\(what the PreToolUse hooks said follows\):\n<untrusted source="PreToolUse hook reason" nonce="[0-9a-f]+">\n[^]*Proj-Sys-Ww2[^]*Proj-Block-Qq7[^]*\n<\/untrusted nonce="[0-9a-f]+">$/);
  expect(proj!.split('<untrusted')[0]).not.toMatch(/Proj-/);
  // The person's own hook's reason: plain.
  expect(own).toContain('Own-Block-Kk3');
  expect(own).not.toContain('<untrusted');
  // The model's next request carries both as the calls' results.
  const sent = (w.server.requests[1]!.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] }).messages;
  const resultOf = (id: string) => String(sent.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content);
  expect(resultOf('c1')).toMatch(/<untrusted source="PreToolUse hook reason"[^>]*>\n[^<]*Proj-Block-Qq7/);
  expect(resultOf('c2')).toMatch(/^Denied by policy: [^<]*Own-Block-Kk3$/);
  // The card (the decision's reasons) still shows the project hook's reason as it is.
  const decided = r.events.filter((e) => e.type === 'tool.decision' && e.decision === 'deny');
  expect(JSON.stringify(decided)).toContain('Proj-Block-Qq7');
}, 120_000);
