/**
 * `deskhand agents list [--cwd DIR]`: the agent definitions a conversation in DIR may give spawn_subagent and
 * map_subagents as their type (docs/subagents-context.md): the person's (`<data dir>/agents/`), enabled plugins',
 * and the folder's (`.deskhand/agents/`; `.claude/agents/` with Claude Code compatibility on, `deskhand compat`), with
 * what was left out and why.
 */
import { resolve } from 'node:path';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import { AgentCatalog } from '../../services/agents';
import { ClaudeCompat } from '../../services/compat';
import { resolveDataDir } from '../assembly/data-dir';
import { pluginAgentFolders } from '../assembly/plugins-wiring';
import { out, parseSubcommand, usage, withStore } from './common';

export async function agentsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseSubcommand(rest, { cwd: { type: 'string' } });
  if (sub !== 'list') throw usage('agents needs list [--cwd DIR].');
  const dataDir = resolveDataDir(values['data-dir']);
  const cwd = resolve(values.cwd ?? process.cwd());
  const { agents, notes } = await withStore(dataDir, (store) => new AgentCatalog({ dataDir, reader: new GuardedContentReader({ dataDir }), folders: () => pluginAgentFolders(dataDir), compat: new ClaudeCompat(store).check }).scan([cwd]));
  if (values.json) {
    out(JSON.stringify({ agents, notes }));
    return 0;
  }
  if (!agents.length) out(`No agent definitions for ${cwd}. Add Markdown files to ${resolve(dataDir, 'agents')} or ${resolve(cwd, '.deskhand', 'agents')}.`);
  for (const a of agents) {
    const where = a.origin === 'project' ? '  (project: its instructions reach the child as untrusted content)' : a.origin === 'plugin' ? `  (plugin ${a.plugin}${a.alias ? `; also ${a.alias}` : ''})` : '';
    const tools = a.tools ? `  (tools: ${a.tools.join(', ')})` : '';
    out(`${a.name}  ${a.description}${tools}${a.model ? `  (model: ${a.model})` : ''}${where}\n  ${a.path}`);
  }
  for (const n of notes) out(`left out: ${n}`);
  return 0;
}
