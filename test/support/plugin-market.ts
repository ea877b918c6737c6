/** A plugin marketplace in a local git repository, in Claude Code's layout (tests of issue 47's plugins). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './tool-context';

const SERVER = `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const r = JSON.parse(line);
  if (r.id === undefined) return;
  if (r.method === 'initialize') return send({ jsonrpc: '2.0', id: r.id, result: { protocolVersion: r.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } } });
  if (r.method === 'tools/list') return send({ jsonrpc: '2.0', id: r.id, result: { tools: [{ name: 'shout', description: 'Shouts.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } });
  if (r.method === 'tools/call') return send({ jsonrpc: '2.0', id: r.id, result: { content: [{ type: 'text', text: 'SHOUT ' + r.params.arguments.text }] } });
  send({ jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'no such method' } });
});
`;

export function put(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

export const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'pipe' });

/** A marketplace repository as Claude Code documents it, with one plugin `kit`; the hook logs tool names to `log`. */
export function marketplace(log: string): string {
  const repo = tempDir('deskhand-market-');
  put(repo, '.claude-plugin/marketplace.json', JSON.stringify({ name: 'acme', owner: { name: 'Acme' }, plugins: [{ name: 'kit', source: './plugins/kit', description: 'A kit of things' }] }));
  const kit = 'plugins/kit';
  put(repo, `${kit}/.claude-plugin/plugin.json`, JSON.stringify({ name: 'kit', version: '1.0.0', description: 'A kit of things', author: { name: 'Acme' } }));
  put(repo, `${kit}/commands/hello.md`, '---\ndescription: Greet someone\nargument-hint: NAME\n---\nGreet $ARGUMENTS warmly. Plugin-Cmd-Marker-3\n');
  put(repo, `${kit}/agents/helper.md`, '---\nname: kit-helper\ndescription: Helps with greetings\ntools: Read, Grep\n---\nYou help with greetings. Plugin-Agent-Marker-4\n');
  put(repo, `${kit}/skills/greet/SKILL.md`, '---\nname: greet\ndescription: Greeting etiquette\n---\n# Greet\nBow first. Plugin-Skill-Marker-5\n');
  put(repo, `${kit}/hooks/hooks.json`, JSON.stringify({ hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'node "${CLAUDE_PLUGIN_ROOT}/hooks/log.mjs"', timeout: 30 }] }] } }));
  put(repo, `${kit}/hooks/log.mjs`, `import { appendFileSync, readFileSync } from 'node:fs';\nconst input = JSON.parse(readFileSync(0, 'utf8'));\nappendFileSync(${JSON.stringify(log)}, input.tool_name + '\\n');\n`);
  put(repo, `${kit}/.mcp.json`, JSON.stringify({ mcpServers: { echo: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] } } }));
  put(repo, `${kit}/server.mjs`, SERVER);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'kit 1.0.0');
  return repo;
}

