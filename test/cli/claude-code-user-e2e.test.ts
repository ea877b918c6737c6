/**
 * A Claude Code user's real files, unchanged (issue 47 "done when"): `.claude/commands/*.md`, `.claude/agents/*.md`
 * and a `.claude/settings.json` hooks block, in the shapes Claude Code's documentation gives (a jq-reading Bash
 * validator that exits 2, `$CLAUDE_PROJECT_DIR`, `allowed-tools`/`argument-hint` front matter, an agent with
 * `tools: Read, Grep, Glob, Bash` and `model: inherit`). With Claude Code compatibility on for the folder (`deskhand
 * compat on`), one `deskhand run` uses all three; the effects prove each. With it off (the default), nothing under
 * `.claude/` is read: the command is sent as typed, the agent type is unknown, the hook never runs.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { reply, type OpenAIChatRequest } from '../support/model-server';
import { useCliWorld } from '../support/cli';

const w = useCliWorld('claude-code-user', { policy: 'high-risk' });
const req = (i: number) => w.server.requests[i]!.body as OpenAIChatRequest;
const system = (i: number) => JSON.stringify(req(i).messages.filter((m) => m.role === 'system' || m.role === 'developer'));

function claudeCodeProject(): void {
  const claude = join(w.work, '.claude');
  mkdirSync(join(claude, 'commands'), { recursive: true });
  mkdirSync(join(claude, 'agents'), { recursive: true });
  mkdirSync(join(claude, 'hooks'), { recursive: true });
  writeFileSync(
    join(claude, 'commands', 'fix-issue.md'),
    '---\nallowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\nargument-hint: [issue-number] [priority]\ndescription: Fix a GitHub issue\nmodel: claude-3-5-haiku-20241022\n---\n\nFix issue #$1 with priority $2. Follow our coding standards.\n',
  );
  writeFileSync(
    join(claude, 'agents', 'code-reviewer.md'),
    '---\nname: code-reviewer\ndescription: Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.\ntools: Read, Grep, Glob, Bash\nmodel: inherit\n---\n\nYou are a senior code reviewer ensuring high standards of code quality and security.\n\nWhen invoked:\n1. Run git diff to see recent changes\n2. Focus on modified files\n3. Begin review immediately\n',
  );
  writeFileSync(
    join(claude, 'settings.json'),
    JSON.stringify(
      {
        permissions: { allow: ['Bash(npm run lint)', 'Bash(npm run test:*)'], deny: ['Read(./.env)'] },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/validate-bash.sh' }] }],
        },
      },
      null,
      2,
    ),
  );
  const script = join(claude, 'hooks', 'validate-bash.sh');
  writeFileSync(script, '#!/bin/bash\nCOMMAND=$(jq -r \'.tool_input.command\')\nif echo "$COMMAND" | grep -q \'rm -rf\'; then\n  echo "Blocked: rm -rf is not allowed in this repository" >&2\n  exit 2\nfi\nexit 0\n');
  chmodSync(script, 0o755);
  mkdirSync(join(w.work, 'build'));
  writeFileSync(join(w.work, 'build', 'keep.txt'), 'keep\n');
}

it('a Claude Code user\'s .claude commands, agents and settings.json hooks work unchanged once compatibility is on', async () => {
  claudeCodeProject();
  const on = await w.cli(['compat', 'on', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(on.code, on.stderr).toBe(0);
  expect(on.stdout).toContain('Claude Code compatibility is on for');
  expect(on.stdout).toContain('.claude/commands, .claude/agents, .claude/settings.json');
  const trusted = await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(trusted.code, trusted.stderr).toBe(0);

  w.server.enqueue(reply().tool('execute_command', { command: 'rm -rf build' }));
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'Review the fix', description: 'review the fix', type: 'code-reviewer' }));
  w.server.enqueue(reply().text('looks good'));
  w.server.enqueue(reply().text('Fixed.'));
  const r = await w.run('/fix-issue 123 high');
  expect(r.code, r.stderr).toBe(0);

  // The command: $1 and $2 filled, inside the project's envelope.
  expect(JSON.stringify(req(0).messages.filter((m) => m.role === 'user'))).toMatch(/<untrusted source=\\"project command \/fix-issue[^>]*>\\n\\nFix issue #123 with priority high\. Follow our coding standards\./);
  // The hook: the Bash call was refused (the folder is still there) and the model read the script's reason.
  expect(existsSync(join(w.work, 'build', 'keep.txt'))).toBe(true);
  expect(JSON.stringify(req(1).messages.filter((m) => m.role === 'tool'))).toContain('Blocked: rm -rf is not allowed in this repository');
  // The agent: its instructions (the project's, so untrusted), Claude Code's tool names mapped, the parent's model.
  expect(system(2)).toMatch(/<untrusted source=\\"project agent definition [^>]*code-reviewer\.md[^>]*>\\nYou are a senior code reviewer/);
  expect((req(2).tools ?? []).map((t) => t.function.name).sort()).toEqual(['execute_command', 'find', 'grep', 'read_file']);
  expect(req(2).model).toBe('m');
}, 180_000);

it('with compatibility off (the default) nothing under .claude/ is loaded: no command, no agent, no hook', async () => {
  claudeCodeProject();
  const status = await w.cli(['compat', 'status', '--cwd', w.work, '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(status.stdout)).toMatchObject({ on: false, claude: ['.claude/commands', '.claude/agents', '.claude/settings.json'] });
  // Trusting finds no project hooks, and the listings say why the folder's .claude/ is not read.
  const trusted = await w.cli(['hooks', 'trust', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(trusted.stdout).toContain('No project hooks');
  expect(trusted.stdout).toMatch(/settings\.json: Claude Code compatibility is off for .*deskhand compat on --cwd/);
  const commands = await w.cli(['commands', 'list', '--cwd', w.work, '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(commands.stdout)).toEqual([]);
  expect((await w.cli(['commands', 'list', '--cwd', w.work, '--data-dir', w.dataDir])).stdout).toMatch(/not read: \S+\.claude\/commands: Claude Code compatibility is off/);
  const agents = await w.cli(['agents', 'list', '--cwd', w.work, '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(agents.stdout).agents).toEqual([]);

  w.server.enqueue(reply().tool('execute_command', { command: 'rm -rf build' }));
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'Review the fix', description: 'review the fix', type: 'code-reviewer' }));
  w.server.enqueue(reply().text('Done.'));
  const r = await w.run('/fix-issue 123 high');
  expect(r.code, r.stderr).toBe(0);
  // The command: sent as typed, no template.
  const users = JSON.stringify(req(0).messages.filter((m) => m.role === 'user'));
  expect(users).toContain('/fix-issue 123 high');
  expect(users).not.toContain('Follow our coding standards');
  // The hook did not run: the command went through (the folder is gone), with no hook's reason.
  expect(existsSync(join(w.work, 'build'))).toBe(false);
  expect(JSON.stringify(req(1).messages)).not.toContain('Blocked: rm -rf');
  // The agent type is unknown, and the parent was never told of it.
  expect(JSON.stringify(req(2).messages.filter((m) => m.role === 'tool'))).toContain('No subagent type \\"code-reviewer\\"');
  expect(system(0)).not.toContain('code-reviewer');
  expect(w.server.requests).toHaveLength(3);

  // Turned on and off again: off is persisted as off.
  await w.cli(['compat', 'on', '--cwd', w.work, '--data-dir', w.dataDir]);
  const off = await w.cli(['compat', 'off', '--cwd', w.work, '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(off.stdout)).toMatchObject({ on: false });
  const list = await w.cli(['compat', 'list', '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(list.stdout)).toEqual({ folders: [] });
}, 180_000);
