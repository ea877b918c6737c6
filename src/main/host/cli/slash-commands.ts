/**
 * `deskhand commands list [--cwd DIR]`: the slash commands a message may start with in DIR (docs/commands.md): the
 * person's (`<data dir>/commands/`), enabled plugins', and the folder's (`.deskhand/commands/`; `.claude/commands/` with
 * Claude Code compatibility on, `deskhand compat`). Run one with
 * `deskhand run "/name arguments"`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import { CommandCatalog } from '../../services/commands';
import { ClaudeCompat } from '../../services/compat';
import { resolveDataDir } from '../assembly/data-dir';
import { pluginCommandFolders } from '../assembly/plugins-wiring';
import { out, parseSubcommand, usage, withStore } from './common';

export async function commandsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseSubcommand(rest, { cwd: { type: 'string' } });
  if (sub !== 'list') throw usage('commands needs list [--cwd DIR].');
  const dataDir = resolveDataDir(values['data-dir']);
  const cwd = resolve(values.cwd ?? process.cwd());
  const { commands, notes, compatOff } = await withStore(dataDir, (store) => {
    const compat = new ClaudeCompat(store);
    return { ...new CommandCatalog({ dataDir, reader: new GuardedContentReader({ dataDir }), folders: () => pluginCommandFolders(dataDir), compat: compat.check }).scan([cwd]), compatOff: !compat.isOn(cwd) };
  });
  if (values.json) {
    out(JSON.stringify(commands));
    return 0;
  }
  if (!commands.length) out(`No slash commands for ${cwd}. Add Markdown files to ${resolve(dataDir, 'commands')} or ${resolve(cwd, '.deskhand', 'commands')}.`);
  for (const c of commands) {
    const whose = c.origin === 'project' ? '  (project: sent as untrusted content)' : c.origin === 'plugin' ? `  (plugin ${c.plugin}${c.alias ? `; also /${c.alias}` : ''})` : '';
    out(`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}  ${c.description}${whose}\n  ${c.path}`);
  }
  for (const n of notes) out(`clash: ${n}`);
  if (compatOff && existsSync(join(cwd, '.claude', 'commands'))) out(`not read: ${join(cwd, '.claude', 'commands')}: Claude Code compatibility is off for ${cwd} (deskhand compat on --cwd ${cwd})`);
  return 0;
}
