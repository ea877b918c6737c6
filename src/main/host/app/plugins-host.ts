/**
 * Plugins and slash commands through the contract (docs/plugins.md, docs/commands.md): Settings → Plugins (list,
 * add a marketplace, install in two steps — see what it brings, then accept — enable, disable, remove) and the
 * composer's command menu (`listCommands`), and Claude Code compatibility for a folder (`getClaudeCompat`,
 * `setClaudeCompat`, services/compat). The same PluginService as `deskhand plugins`; a plugin's MCP servers
 * connect or disconnect at once in this runtime.
 */
import { DeskhandError } from '../../../shared/errors';
import type { ClaudeCompatView, CommandView, PluginsView, PLUGIN_METHOD_NAMES } from '../../../shared/contract/extensions';
import { PluginService, readPlugin, type StagedPlugin } from '../../services/plugins';
import { ClaudeCompat, claudeParts, compatKey } from '../../services/compat';
import { parseServerConfig } from '../../services/mcp/config';
import { PersistentConversationState } from '../../runtime/context/conversation-state';
import type { HandlerGroup } from './handler-groups';

/** Commands the composer handles itself (not templates). */
const BUILT_IN: CommandView[] = [{ name: 'tools', description: 'Show this conversation\'s tools and families', argumentHint: null, origin: 'builtin' }];

export const pluginsGroup: HandlerGroup<(typeof PLUGIN_METHOD_NAMES)[number]> = ({ runtime, dataDir }) => {
  const plugins = new PluginService({ dataDir, store: runtime.store });
  const compat = new ClaudeCompat(runtime.store);
  const compatView = (folder: string): ClaudeCompatView => {
    const key = compatKey(folder);
    return { folder: key, on: compat.isOn(key), claude: claudeParts(key) };
  };
  const staged = new Map<string, StagedPlugin>();
  const view = (): PluginsView => ({
    plugins: plugins.list().map((p) => ({ label: p.label, version: p.version, description: p.description, enabled: p.enabled })),
    marketplaces: plugins.marketplaces(),
  });
  const failing = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      throw DeskhandError.isInstance(err) ? err : new DeskhandError('usage', (err as Error).message);
    }
  };
  /** The plugin's servers in this runtime now: connected when it is on, disconnected when it is off or gone. */
  const syncServers = async (names: readonly string[]) => {
    const q = runtime.records.extensions;
    for (const name of names) {
      const row = q.server(name);
      if (row) await runtime.mcp.connect(parseServerConfig({ ...JSON.parse(row.config), name })).catch(() => undefined);
      else await runtime.mcp.disconnect(name).catch(() => undefined);
    }
  };
  const serversOf = (label: string): string[] => {
    const p = plugins.state().plugins[label];
    if (!p) return [];
    try {
      return readPlugin(p.path, label).servers.map((s) => s.name);
    } catch {
      return p.servers;
    }
  };
  return {
    async listCommands(p) {
      const conv = runtime.records.getConversation(p.conversationId);
      if (!conv) throw new DeskhandError('not_found', `No conversation ${p.conversationId}.`);
      const roots = new PersistentConversationState(conv.folder, conv.state).workspaceRoots;
      const custom = (runtime.commands?.list(roots) ?? []).map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint, origin: c.origin }));
      return { commands: [...BUILT_IN, ...custom.filter((c) => !BUILT_IN.some((b) => b.name === c.name))] };
    },
    listPlugins: async () => view(),
    getClaudeCompat: async (p) => compatView(p.folder),
    async setClaudeCompat(p) {
      compat.set(p.folder, p.on);
      return compatView(p.folder);
    },
    async addMarketplace(p) {
      try {
        await plugins.addMarketplace(p.source);
      } catch (err) {
        throw new DeskhandError('usage', (err as Error).message);
      }
      return view();
    },
    async installPlugin(p) {
      const ready = staged.get(p.label);
      if (!p.accept || !ready) {
        if (ready) plugins.discard(ready);
        let next: StagedPlugin;
        try {
          next = p.label in plugins.state().plugins ? await plugins.stageUpdate(p.label) : await plugins.fetch(p.label);
        } catch (err) {
          throw new DeskhandError('usage', (err as Error).message);
        }
        if (!p.accept || next.needsConsent) {
          // Shown first; installed only when the person accepts this very copy.
          staged.set(p.label, next);
          return { ...view(), preview: next.description };
        }
        failing(() => plugins.commit(next));
        await syncServers(serversOf(p.label));
        return { ...view(), preview: null };
      }
      staged.delete(p.label);
      failing(() => plugins.commit(ready));
      await syncServers(serversOf(p.label));
      return { ...view(), preview: null };
    },
    async setPluginEnabled(p) {
      failing(() => plugins.setEnabled(p.label, p.enabled));
      await syncServers(serversOf(p.label));
      return view();
    },
    async removePlugin(p) {
      const names = serversOf(p.label);
      failing(() => plugins.remove(p.label));
      await syncServers(names);
      return view();
    },
  };
};
