/**
 * `deskhand plugins marketplace add URL|PATH | marketplace list`, `plugins install NAME@MARKET [--yes]`, `list`,
 * `enable`, `disable`, `remove`, `update NAME@MARKET [--yes]` (docs/plugins.md). Installing shows everything the
 * plugin brings and asks once (on a terminal, or `--yes`); an update whose hooks, servers or scripts changed asks again.
 */
import { createInterface } from 'node:readline/promises';
import { PluginService, type StagedPlugin } from '../../services/plugins';
import { resolveDataDir } from '../assembly/data-dir';
import { out, parseSubcommand, usage, withStore } from './common';

async function confirm(preview: string, yes: boolean): Promise<boolean> {
  if (yes) {
    out(preview);
    return true;
  }
  if (!process.stdin.isTTY) throw usage(`${preview}\nNo terminal to ask on: run it again with --yes to accept.`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${preview}\nInstall it? [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export async function pluginsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { yes: { type: 'boolean' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const label = () => {
    const l = positionals[0];
    if (!l) throw usage(`plugins ${sub} needs NAME@MARKETPLACE.`);
    return l;
  };
  return withStore(dataDir, async (store) => {
    const plugins = new PluginService({ dataDir, store });
    const accept = async (staged: StagedPlugin, verb: string): Promise<number> => {
      let accepted = !staged.needsConsent;
      try {
        accepted ||= await confirm(staged.description, values.yes === true);
      } catch (err) {
        plugins.discard(staged);
        throw err;
      }
      if (!accepted) {
        plugins.discard(staged);
        out(`Not ${verb}: nothing changed.`);
        return 1;
      }
      const record = plugins.commit(staged);
      out(`${verb === 'installed' ? 'Installed' : 'Updated'} ${staged.label}${record.version ? ` ${record.version}` : ''}${record.enabled ? '' : ' (disabled)'}.`);
      return 0;
    };
    switch (sub) {
      case 'marketplace': {
        const [what, source] = positionals;
        if (what === 'add' && source) {
          const m = await plugins.addMarketplace(source);
          out(`Added marketplace ${m.name}: ${m.plugins.map((p) => p.name).join(', ') || 'no plugins'}. Install one with deskhand plugins install NAME@${m.name}`);
          return 0;
        }
        if (what === 'list') {
          const all = plugins.marketplaces();
          if (values.json) out(JSON.stringify(all));
          else for (const m of all) out(`${m.name}  ${m.source}${m.error ? `\n  error: ${m.error}` : ''}${m.plugins.map((p) => `\n  ${p.name}@${m.name}${p.installed ? ' (installed)' : ''}  ${p.description}`).join('')}`);
          return 0;
        }
        throw usage('plugins marketplace needs add URL|PATH, or list.');
      }
      case 'install': {
        const spec = label();
        if (plugins.state().plugins[spec]) throw usage(`${spec} is installed already: deskhand plugins update ${spec}.`);
        return accept(await plugins.fetch(spec), 'installed');
      }
      case 'update':
        return accept(await plugins.stageUpdate(label()), 'updated');
      case 'enable':
      case 'disable': {
        const r = plugins.setEnabled(label(), sub === 'enable');
        out(`${sub === 'enable' ? 'Enabled' : 'Disabled'} ${positionals[0]}${r.enabled ? '' : ': its hooks, servers, commands, agents and skills are off'}.`);
        return 0;
      }
      case 'remove':
        plugins.remove(label());
        out(`Removed ${positionals[0]}.`);
        return 0;
      case 'list': {
        const all = plugins.list();
        if (values.json) {
          out(JSON.stringify(all));
          return 0;
        }
        if (!all.length) out('No plugins. Add a marketplace (deskhand plugins marketplace add URL|PATH) and install one (deskhand plugins install NAME@MARKET).');
        for (const p of all) out(`${p.label}${p.version ? ` ${p.version}` : ''}  ${p.enabled ? 'enabled' : 'disabled'}  ${p.description}`);
        return 0;
      }
      default:
        throw usage('plugins needs marketplace add|list, install, list, enable, disable, remove or update.');
    }
  });
}
