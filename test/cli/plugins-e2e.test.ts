/**
 * Plugins end to end through the built CLI (issue 47 item 4, docs/plugins.md): a marketplace in a local git
 * repository (cloned through the launcher), a plugin in Claude Code's layout bringing a command, an agent, a skill,
 * a hook and an MCP server. Each is proven by its effect — what the scripted model server receives, the hook's log
 * file, the server's tool list — and disabling the plugin removes each.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { reply, type OpenAIChatRequest } from '../support/model-server';
import { useCliWorld } from '../support/cli';
import { tempDir } from '../support/tool-context';
import { git, marketplace, put } from '../support/plugin-market';

const w = useCliWorld('plugins');
const req = (i: number) => w.server.requests[i]!.body as OpenAIChatRequest;
const system = (i: number) => JSON.stringify(req(i).messages.filter((m) => m.role === 'system' || m.role === 'developer'));
const users = (i: number) => JSON.stringify(req(i).messages.filter((m) => m.role === 'user'));
const toolResults = (i: number) => JSON.stringify(req(i).messages.filter((m) => m.role === 'tool'));

const data = () => ['--data-dir', w.dataDir];

async function installKit(log: string): Promise<string> {
  const repo = marketplace(log);
  const added = await w.cli(['plugins', 'marketplace', 'add', `file://${repo}`, ...data()]);
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout).toContain('Added marketplace acme: kit');
  // Cloned (through git), not read in place.
  expect(existsSync(join(w.dataDir, 'plugins', 'marketplaces', 'acme', '.claude-plugin', 'marketplace.json'))).toBe(true);
  // No terminal and no --yes: it shows what the plugin brings and installs nothing.
  const asked = await w.cli(['plugins', 'install', 'kit@acme', ...data()]);
  expect(asked.code).toBe(2);
  expect(asked.stderr).toContain('PostToolUse [*]: node "');
  expect(asked.stderr).toMatch(/kit-echo: node \S+server\.mjs/);
  expect(asked.stderr).toContain('Slash commands (prompt templates you run): /kit:hello');
  expect(asked.stderr).toContain('Agent definitions (subagent types, within the parent\'s tools): kit:kit-helper');
  expect(asked.stderr).toContain('Skills (instructions the model may load): greet');
  expect(asked.stderr).toContain('run it again with --yes');
  expect((await w.cli(['plugins', 'list', ...data()])).stdout).toContain('No plugins');
  const ok = await w.cli(['plugins', 'install', 'kit@acme', '--yes', ...data()]);
  expect(ok.code, ok.stderr).toBe(0);
  expect(ok.stdout).toContain('Installed kit@acme 1.0.0.');
  return repo;
}

/** `/kit:hello Ann`, then the model loads the skill and delegates to the plugin's agent (by its namespaced name). */
function script(): void {
  w.server.enqueue(reply().tool('load_skill', { name: 'greet' }));
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'Help greet Ann', description: 'help greet', type: 'kit:kit-helper' }));
  w.server.enqueue(reply().text('helped'));
  w.server.enqueue(reply().text('All done.'));
}

it('a plugin from a git marketplace brings a command, an agent, a skill, a hook and an MCP server; disabling removes each', async () => {
  const log = join(tempDir('deskhand-plugin-log-'), 'tools.log');
  await installKit(log);
  expect((await w.cli(['plugins', 'list', ...data()])).stdout).toContain('kit@acme 1.0.0  enabled  A kit of things');
  const hooks = await w.cli(['hooks', 'list', '--cwd', w.work, ...data()]);
  expect(hooks.stdout).toMatch(/Plugin kit@acme hooks: run as your own[^\n]*\n {2}PostToolUse \[\*\]: node "\S+installed\/acme\/kit\/hooks\/log\.mjs"/);

  script();
  const r = await w.run('/kit:hello Ann');
  expect(r.code, r.stderr).toBe(0);
  // The command, as the person's own words.
  expect(users(0)).toContain('Greet Ann warmly. Plugin-Cmd-Marker-3');
  expect(users(0)).not.toContain('<untrusted');
  // The skill.
  expect(toolResults(1)).toContain('Plugin-Skill-Marker-5');
  // The agent: the child's system prompt and tools.
  expect(system(2)).toContain('You help with greetings. Plugin-Agent-Marker-4');
  expect((req(2).tools ?? []).map((t) => t.function.name).sort()).toEqual(['grep', 'read_file']);
  // The hook ran after each call.
  expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['load_skill', 'spawn_subagent']);
  // The MCP server, through the store like `mcp add`.
  const tested = await w.cli(['mcp', 'test', 'kit-echo', ...data()]);
  expect(tested.stdout, tested.stderr).toContain('kit-echo: connected, 1 tools: shout');

  const off = await w.cli(['plugins', 'disable', 'kit@acme', ...data()]);
  expect(off.code, off.stderr).toBe(0);
  const before = w.server.requests.length;
  w.server.enqueue(reply().tool('load_skill', { name: 'greet' }));
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'Help greet Ann', description: 'help greet', type: 'kit-helper' }));
  w.server.enqueue(reply().text('All done.'));
  const again = await w.run('/hello Ann');
  expect(again.code, again.stderr).toBe(0);
  expect(users(before)).toContain('/hello Ann');
  expect(w.sentSince(before)).not.toContain('Plugin-Cmd-Marker-3');
  expect(w.sentSince(before)).not.toContain('Plugin-Skill-Marker-5');
  expect(toolResults(before + 2)).toContain('No subagent type \\"kit-helper\\"');
  expect(w.server.requests).toHaveLength(before + 3);
  expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  const listed = await w.cli(['mcp', 'list', ...data()]);
  expect(listed.stdout).not.toContain('kit-echo');

  // Enabled again, everything is back; removed, its files are gone.
  expect((await w.cli(['plugins', 'enable', 'kit@acme', ...data()])).code).toBe(0);
  expect((await w.cli(['mcp', 'list', ...data()])).stdout).toContain('kit-echo');
  expect((await w.cli(['commands', 'list', '--cwd', w.work, ...data()])).stdout).toContain('/kit:hello NAME  Greet someone  (plugin kit@acme; also /hello)');
  expect((await w.cli(['plugins', 'remove', 'kit@acme', ...data()])).code).toBe(0);
  expect(existsSync(join(w.dataDir, 'plugins', 'installed', 'acme', 'kit'))).toBe(false);
  expect((await w.cli(['mcp', 'list', ...data()])).stdout).not.toContain('kit-echo');
}, 240_000);

it('an update that changes a hook asks again; one that changes only a command does not', async () => {
  const log = join(tempDir('deskhand-plugin-log-'), 'tools.log');
  const repo = await installKit(log);
  put(repo, 'plugins/kit/commands/hello.md', '---\ndescription: Greet someone\n---\nGreet $ARGUMENTS. Version-2\n');
  git(repo, 'commit', '-qam', 'command only');
  const quiet = await w.cli(['plugins', 'update', 'kit@acme', ...data()]);
  expect(quiet.code, quiet.stderr).toBe(0);
  expect(quiet.stdout).toContain('Updated kit@acme');
  expect((await w.cli(['commands', 'list', '--cwd', w.work, ...data()])).stdout).toContain('/kit:hello  Greet someone  (plugin kit@acme; also /hello)');

  put(repo, 'plugins/kit/hooks/hooks.json', JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo changed' }] }] } }));
  git(repo, 'commit', '-qam', 'new hook');
  const asked = await w.cli(['plugins', 'update', 'kit@acme', ...data()]);
  expect(asked.code).toBe(2);
  expect(asked.stderr).toContain('PreToolUse [Bash]: echo changed');
  // Declined: the accepted copy stays.
  expect(readFileSync(join(w.dataDir, 'plugins', 'installed', 'acme', 'kit', 'hooks', 'hooks.json'), 'utf8')).toContain('PostToolUse');
  const yes = await w.cli(['plugins', 'update', 'kit@acme', '--yes', ...data()]);
  expect(yes.code, yes.stderr).toBe(0);
  expect(readFileSync(join(w.dataDir, 'plugins', 'installed', 'acme', 'kit', 'hooks', 'hooks.json'), 'utf8')).toContain('echo changed');
}, 240_000);
