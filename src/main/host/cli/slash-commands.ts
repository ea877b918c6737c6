/**
 * `deskhand commands list [--cwd DIR]`: the slash commands a message may start with in DIR (docs/commands.md): the
 * person's (`<data dir>/commands/`) and the folder's (`.deskhand/commands/`, `.claude/commands/`). Run one with
 * `deskhand run "/name arguments"`.
 */
import { resolve } from 'node:path';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import { CommandCatalog } from '../../services/commands';
import { resolveDataDir } from '../assembly/data-dir';
import { pluginCommandFolders } from '../assembly/plugins-wiring';
import { out, parseSubcommand, usage } from './common';

export async function commandsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseSubcommand(rest, { cwd: { type: 'string' } });
  if (sub !== 'list') throw usage('commands needs list [--cwd DIR].');
  const dataDir = resolveDataDir(values['data-dir']);
  const cwd = resolve(values.cwd ?? process.cwd());
  const commands = new CommandCatalog({ dataDir, reader: new GuardedContentReader({ dataDir }), folders: () => pluginCommandFolders(dataDir) }).list([cwd]);
  if (values.json) {
    out(JSON.stringify(commands));
    return 0;
  }
  if (!commands.length) out(`No slash commands for ${cwd}. Add Markdown files to ${resolve(dataDir, 'commands')} or ${resolve(cwd, '.deskhand', 'commands')}.`);
  for (const c of commands) {
    out(`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}  ${c.description}${c.origin === 'project' ? '  (project: sent as untrusted content)' : c.origin === 'plugin' ? '  (plugin)' : ''}\n  ${c.path}`);
  }
  return 0;
}
