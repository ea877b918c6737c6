/**
 * `deskhand compat on|off|status [--cwd DIR] | list`: Claude Code compatibility for a folder (services/compat). On, a
 * workspace rooted there also reads `.claude/commands/`, `.claude/agents/` and `.claude/settings.json` hooks; off (the
 * default) nothing under `.claude/` is read. It trusts nothing: `.claude/` hooks still wait for `deskhand hooks trust`.
 */
import { resolve } from 'node:path';
import { ClaudeCompat, claudeParts, compatKey } from '../../services/compat';
import { resolveDataDir } from '../assembly/data-dir';
import { out, parseSubcommand, usage, withStore } from './common';

export async function compatCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseSubcommand(rest, { cwd: { type: 'string' } });
  if (!['on', 'off', 'status', 'list'].includes(sub ?? '')) throw usage('compat needs on [--cwd DIR], off [--cwd DIR], status [--cwd DIR] or list.');
  const dataDir = resolveDataDir(values['data-dir']);
  const folder = compatKey(values.cwd ?? process.cwd());
  return withStore(dataDir, (store) => {
    const compat = new ClaudeCompat(store);
    if (sub === 'list') {
      const folders = compat.folders();
      if (values.json) out(JSON.stringify({ folders }));
      else out(folders.length ? folders.join('\n') : 'Claude Code compatibility is off everywhere. Turn it on for a folder: deskhand compat on --cwd DIR');
      return 0;
    }
    if (sub === 'on' || sub === 'off') compat.set(folder, sub === 'on');
    const on = compat.isOn(folder);
    const parts = claudeParts(folder);
    if (values.json) {
      out(JSON.stringify({ folder, on, claude: parts }));
      return 0;
    }
    out(`Claude Code compatibility is ${on ? 'on' : 'off'} for ${folder}.`);
    if (on) {
      out(parts.length ? `Read there: ${parts.join(', ')} (as the project's: commands and agents are untrusted text; hooks run only after deskhand hooks trust).` : 'It has no .claude/commands, .claude/agents or .claude/settings.json yet.');
    } else if (parts.length) out(`Not read there: ${parts.join(', ')}. Turn it on with: deskhand compat on --cwd ${resolve(folder)}`);
    return 0;
  });
}
