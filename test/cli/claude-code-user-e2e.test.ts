/**
 * A Claude Code user's real files, unchanged (issue 47 "done when"): `.claude/commands/*.md`, `.claude/agents/*.md`
 * and a `.claude/settings.json` hooks block, in the shapes Claude Code's documentation gives (a jq-reading Bash
 * validator that exits 2, `$CLAUDE_PROJECT_DIR`, `allowed-tools`/`argument-hint` front matter, an agent with
 * `tools: Read, Grep, Glob, Bash` and `model: inherit`). One `deskhand run` uses all three; the effects prove each.
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

it('a Claude Code user\'s .claude commands, agents and settings.json hooks work unchanged', async () => {
  claudeCodeProject();
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
