/**
 * `deskhand policy explain` and PreToolUse hooks (issue 47 item 5, docs/hooks.md): it names the hooks that apply to
 * the call (or says none does) without running them, and with `--run-hooks` runs them so their verdict joins the
 * fold as in a run. The hook's log file proves when it ran.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

function world() {
  const dataDir = tempDir('deskhand-explain-hooks-data-');
  const work = tempDir('deskhand-explain-hooks-work-');
  const log = join(work, 'hook.log');
  const script = join(dataDir, 'no-rm.sh');
  writeFileSync(script, `#!/bin/sh\ncat > /dev/null\necho ran >> "${log}"\necho "rm is off limits here" >&2\nexit 2\n`, { mode: 0o755 });
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: script }] }] } }));
  const explain = (tool: string, args: unknown, ...more: string[]) => runCli(['policy', 'explain', '--tool', tool, '--args', JSON.stringify(args), '--cwd', work, '--data-dir', dataDir, '--policy', 'high-risk', ...more], { env: { HOME: work } });
  return { log, script, explain };
}

it('names the hooks that apply without running them; --run-hooks folds their verdict in', async () => {
  const w = world();
  const listed = await w.explain('execute_command', { command: 'rm -f x' });
  expect(listed.code, listed.stderr).toBe(0);
  const a = JSON.parse(listed.stdout);
  expect(a.hooks.applying).toEqual([`yours: ${w.script}`]);
  expect(a.hooks.ran).toBe(false);
  expect(a.hooks.summary).toContain('add --run-hooks');
  expect(existsSync(w.log)).toBe(false);

  const ran = await w.explain('execute_command', { command: 'rm -f x' }, '--run-hooks');
  expect(ran.code, ran.stderr).toBe(0);
  const b = JSON.parse(ran.stdout);
  expect(b.decision).toBe('deny');
  expect(b.hooks.ran).toBe(true);
  expect(b.hooks.summary).toMatch(/the PreToolUse hooks say deny: .*rm is off limits here/);
  expect(b.inspectors.find((i: { inspector: string }) => i.inspector === 'hooks').verdict).toBe('deny');
  expect(readFileSync(w.log, 'utf8')).toBe('ran\n');

  const other = JSON.parse((await w.explain('read_file', { path: 'a.txt' }, '--run-hooks')).stdout);
  expect(other.hooks).toEqual({ applying: [], ran: false, summary: 'no PreToolUse hook applies to this call' });
  expect(readFileSync(w.log, 'utf8')).toBe('ran\n');
}, 120_000);
