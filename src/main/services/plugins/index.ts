/**
 * Plugins and marketplaces in Claude Code's layout (docs/plugins.md). A marketplace is a folder or git repository
 * with `.claude-plugin/marketplace.json`; a plugin is a folder in it (or a git repository it names) with a manifest
 * and any of commands, agents, skills, hooks and MCP servers. Installing copies the plugin into the data folder
 * (`<data dir>/plugins/installed/<market>/<name>`) and records what the person accepted (`plugins.json`): the
 * digest of everything in it that runs. What an enabled plugin brings then goes through the doors a hand-added one
 * does: its hooks are the person's hooks, its servers are MCP servers in the store (pinned like `mcp add`), its
 * commands, agents and skills are read from its folder like the person's own. git runs through the launcher.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Store } from '../store/store';
import { extensionsModule } from '../store/modules/extensions';
import { pinServer } from '../mcp/pins';
import { nothingAt, pathStamp } from '../file-stamp';
import { runHostProgram } from '../processes/launcher';
import type { HookEntry } from '../hooks/config';
import { describePlugin, PLUGIN_NAME, readPlugin, runsDigest, type PluginContents } from './contents';

export { describePlugin, readPlugin, type PluginContents } from './contents';

export interface MarketplaceRecord {
  /** As the person gave it: a URL or a path. */
  source: string;
  /** Where its files are: the person's folder, or Deskhand's clone under `<data dir>/plugins/marketplaces`. */
  path: string;
  cloned: boolean;
}

export interface PluginRecord {
  name: string;
  marketplace: string;
  version: string | null;
  path: string;
  enabled: boolean;
  /** The runs digest the person accepted (install, or an update they confirmed). */
  accepted: string;
  /** The MCP servers it put in the store (removed when it is disabled or removed). */
  servers: string[];
  installedAt: number;
}

export interface PluginsState {
  marketplaces: Record<string, MarketplaceRecord>;
  plugins: Record<string, PluginRecord>;
}

interface MarketplaceEntry {
  name: string;
  description?: string;
  version?: string;
  source: string | { source?: string; repo?: string; url?: string };
}

const stateFile = (dataDir: string) => join(dataDir, 'plugins', 'plugins.json');

export function readPluginsState(dataDir: string): PluginsState {
  try {
    const json = JSON.parse(readFileSync(stateFile(dataDir), 'utf8')) as Partial<PluginsState>;
    return { marketplaces: json.marketplaces ?? {}, plugins: json.plugins ?? {} };
  } catch {
    return { marketplaces: {}, plugins: {} };
  }
}

function writePluginsState(dataDir: string, state: PluginsState): void {
  mkdirSync(join(dataDir, 'plugins'), { recursive: true });
  const tmp = `${stateFile(dataDir)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, stateFile(dataDir));
}

/** An enabled plugin whose files still hold what the person accepted (a changed one is left out, with a note). */
export interface ActivePlugin {
  label: string;
  root: string;
  contents: PluginContents;
}

const activeCache = new Map<string, { key: string; active: ActivePlugin[]; notes: string[] }>();

/** The enabled plugins, read again only when plugins.json changed (hooks ask for them on every call). */
export function activePlugins(dataDir: string): { active: ActivePlugin[]; notes: string[] } {
  // Asked on every event and step: no state file (no plugin installed) is answered without an exception.
  const key = pathStamp(stateFile(dataDir));
  if (nothingAt(key)) return { active: [], notes: [] };
  const cached = activeCache.get(dataDir);
  if (cached?.key === key) return cached;
  const active: ActivePlugin[] = [];
  const notes: string[] = [];
  for (const [label, p] of Object.entries(readPluginsState(dataDir).plugins)) {
    if (!p.enabled) continue;
    try {
      const contents = readPlugin(p.path, label);
      if (contents.runsDigest !== p.accepted) notes.push(`plugin ${label}: its files changed since you accepted it; it is off until \`deskhand plugins update ${label}\``);
      else active.push({ label, root: p.path, contents });
    } catch (err) {
      notes.push(`plugin ${label}: ${(err as Error).message}`);
    }
  }
  const entry = { key, active, notes };
  activeCache.set(dataDir, entry);
  return entry;
}

/** The folders of one kind (`commands`, `agents`, `skills`) of the enabled plugins. */
export function pluginFolders(dataDir: string, kind: 'commands' | 'agents' | 'skills'): { dir: string; plugin: string }[] {
  return activePlugins(dataDir)
    .active.map((p) => ({ dir: join(p.root, kind), plugin: p.label }))
    .filter((f) => existsSync(f.dir));
}

/** The hooks of the enabled plugins: the person's own, as accepted. */
export function pluginHooks(dataDir: string): { entries: HookEntry[]; notes: string[] } {
  const { active, notes } = activePlugins(dataDir);
  return { entries: active.flatMap((p) => p.contents.hooks), notes };
}

/** A plugin fetched for install or update, not yet accepted: `commit` makes it the installed copy, `discard` drops it. */
export interface StagedPlugin {
  label: string;
  staged: string;
  contents: PluginContents;
  /** The installed copy's record, on an update. */
  previous: PluginRecord | null;
  /** An update whose hooks, servers or scripts changed (or an install): the person must accept it. */
  needsConsent: boolean;
  description: string;
}

export class PluginService {
  constructor(private readonly opts: { dataDir: string; store: Store }) {}

  private get dir(): string {
    return join(this.opts.dataDir, 'plugins');
  }

  state(): PluginsState {
    return readPluginsState(this.opts.dataDir);
  }

  /** git through the launcher, with repository hooks off. */
  private async git(args: string[], cwd?: string): Promise<void> {
    const r = await runHostProgram({ program: 'git', args: ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], ...(cwd ? { cwd } : {}), timeoutMs: 300_000 });
    if (r.error) throw new Error(`git could not start (${r.error.message}): install git to add marketplaces from a URL.`);
    if (r.code !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${r.code}`}`);
  }

  private readMarketplace(path: string): { name: string; plugins: MarketplaceEntry[] } {
    const file = join(path, '.claude-plugin', 'marketplace.json');
    let json: { name?: unknown; plugins?: unknown };
    try {
      json = JSON.parse(readFileSync(file, 'utf8')) as typeof json;
    } catch (err) {
      throw new Error(existsSync(file) ? `${file} is not valid JSON (${(err as Error).message}).` : `${path} is not a marketplace: it has no .claude-plugin/marketplace.json.`);
    }
    if (typeof json.name !== 'string' || !PLUGIN_NAME.test(json.name)) throw new Error(`${file}: "name" must be a marketplace name (letters, digits, ., _ and -).`);
    if (!Array.isArray(json.plugins)) throw new Error(`${file}: "plugins" must be a list of {name, source}.`);
    return { name: json.name, plugins: json.plugins as MarketplaceEntry[] };
  }

  /** `marketplace add URL|PATH`: a local folder is read in place; anything else is cloned with git. */
  async addMarketplace(source: string): Promise<{ name: string; plugins: { name: string; description: string }[] }> {
    const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !/^[\w.-]+@[\w.-]+:/.test(source) && existsSync(resolve(source));
    let path: string;
    let cloned = false;
    if (local) path = resolve(source);
    else {
      const tmp = join(this.dir, 'marketplaces', `.clone-${process.pid}-${Date.now()}`);
      mkdirSync(join(this.dir, 'marketplaces'), { recursive: true });
      await this.git(['clone', '--depth', '1', '--', source, tmp]);
      path = tmp;
      cloned = true;
    }
    let market: ReturnType<PluginService['readMarketplace']>;
    try {
      market = this.readMarketplace(path);
    } catch (err) {
      if (cloned) rmSync(path, { recursive: true, force: true });
      throw err;
    }
    const state = this.state();
    if (cloned) {
      const final = join(this.dir, 'marketplaces', market.name);
      rmSync(final, { recursive: true, force: true });
      renameSync(path, final);
      path = final;
    }
    state.marketplaces[market.name] = { source, path, cloned };
    writePluginsState(this.opts.dataDir, state);
    return { name: market.name, plugins: market.plugins.map((p) => ({ name: String(p.name), description: String(p.description ?? '') })) };
  }

  /** Copies `name@market` from its marketplace (a folder in it, or a git repository it names) into a staging folder. */
  async fetch(spec: string): Promise<StagedPlugin> {
    const m = /^([^@\s]+)@([^@\s]+)$/.exec(spec);
    if (!m) throw new Error(`Name the plugin as NAME@MARKETPLACE (got "${spec}"); deskhand plugins marketplace list shows them.`);
    const [, name, marketName] = m as unknown as [string, string, string];
    const state = this.state();
    const market = state.marketplaces[marketName];
    if (!market) throw new Error(`No marketplace "${marketName}": add it with deskhand plugins marketplace add URL|PATH.`);
    const entry = this.readMarketplace(market.path).plugins.find((p) => p.name === name);
    if (!entry) throw new Error(`Marketplace ${marketName} has no plugin "${name}".`);
    const label = `${name}@${marketName}`;
    const staged = join(this.dir, 'installed', marketName, `.${name}.staged-${process.pid}`);
    rmSync(staged, { recursive: true, force: true });
    mkdirSync(join(this.dir, 'installed', marketName), { recursive: true });
    const source = entry.source;
    if (typeof source === 'string') {
      const from = resolve(market.path, source);
      const rel = relative(market.path, from);
      if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`Plugin ${label}: its source ${source} leaves the marketplace.`);
      cpSync(from, staged, { recursive: true, filter: (src) => !src.split(/[\\/]/).includes('.git'), verbatimSymlinks: true });
    } else {
      const url = source.source === 'github' && source.repo ? `https://github.com/${source.repo}.git` : source.url;
      if (!url) throw new Error(`Plugin ${label}: its source must be a path in the marketplace, {"source": "github", "repo": "owner/name"} or {"source": "url", "url": "…"}.`);
      await this.git(['clone', '--depth', '1', '--', url, staged]);
      rmSync(join(staged, '.git'), { recursive: true, force: true });
    }
    let contents: PluginContents;
    try {
      contents = readPlugin(staged, label);
    } catch (err) {
      rmSync(staged, { recursive: true, force: true });
      throw err;
    }
    const previous = state.plugins[label] ?? null;
    const final = join(this.dir, 'installed', marketName, name);
    // What is shown and accepted is the copy as it will be: paths in hooks and servers name the installed folder.
    const shown = { ...contents, hooks: contents.hooks.map((h) => ({ ...h, command: h.command.split(staged).join(final) })), servers: contents.servers.map((s) => JSON.parse(JSON.stringify(s).split(JSON.stringify(staged).slice(1, -1)).join(JSON.stringify(final).slice(1, -1))) as typeof s) };
    return { label, staged, contents, previous, needsConsent: !previous || previous.accepted !== contents.runsDigest, description: describePlugin(shown, label) };
  }

  discard(staged: StagedPlugin): void {
    rmSync(staged.staged, { recursive: true, force: true });
  }

  /** The staged copy becomes the installed one, accepted as it is, enabled (an update keeps its enabled state). */
  commit(s: StagedPlugin): PluginRecord {
    const [name, marketName] = s.label.split('@') as [string, string];
    const final = join(this.dir, 'installed', marketName, name);
    const state = this.state();
    const previous = state.plugins[s.label];
    if (previous) this.removeServers(previous);
    rmSync(final, { recursive: true, force: true });
    renameSync(s.staged, final);
    const contents = readPlugin(final, s.label);
    const record: PluginRecord = { name, marketplace: marketName, version: contents.manifest.version, path: final, enabled: previous?.enabled ?? true, accepted: runsDigest(final), servers: [], installedAt: previous?.installedAt ?? Date.now() };
    if (record.enabled) record.servers = this.addServers(contents);
    state.plugins[s.label] = record;
    writePluginsState(this.opts.dataDir, state);
    return record;
  }

  /** Its MCP servers, through the door `deskhand mcp add` uses (the files their command lines name pinned). */
  private addServers(contents: PluginContents): string[] {
    const q = this.opts.store.module(extensionsModule);
    for (const s of contents.servers) {
      const config = s.transport === 'stdio' ? pinServer(s, contents.root) : s;
      const { name: _n, ...stored } = config;
      q.putServer(s.name, JSON.stringify(stored));
    }
    return contents.servers.map((s) => s.name);
  }

  private removeServers(record: PluginRecord): void {
    const q = this.opts.store.module(extensionsModule);
    for (const name of record.servers) q.removeServer(name);
  }

  private need(label: string): { state: PluginsState; record: PluginRecord } {
    const state = this.state();
    const record = state.plugins[label];
    if (!record) throw new Error(`No plugin ${label} is installed (deskhand plugins list).`);
    return { state, record };
  }

  setEnabled(label: string, enabled: boolean): PluginRecord {
    const { state, record } = this.need(label);
    if (enabled && !record.enabled) {
      const contents = readPlugin(record.path, label);
      if (contents.runsDigest !== record.accepted) throw new Error(`Plugin ${label} changed since you accepted it: run deskhand plugins update ${label} to review it.`);
      record.servers = this.addServers(contents);
    }
    if (!enabled && record.enabled) {
      this.removeServers(record);
      record.servers = [];
    }
    record.enabled = enabled;
    writePluginsState(this.opts.dataDir, state);
    return record;
  }

  remove(label: string): void {
    const { state, record } = this.need(label);
    this.removeServers(record);
    rmSync(record.path, { recursive: true, force: true });
    delete state.plugins[label];
    writePluginsState(this.opts.dataDir, state);
  }

  /** Pulls a cloned marketplace again (git), then stages the plugin's new copy. */
  async stageUpdate(label: string): Promise<StagedPlugin> {
    const { state, record } = this.need(label);
    const market = state.marketplaces[record.marketplace];
    if (market?.cloned) {
      // Deskhand's own shallow clone: the remote's newest commit replaces it (nothing of the person's is in it).
      await this.git(['fetch', '--depth', '1', 'origin'], market.path);
      await this.git(['reset', '--hard', '--quiet', 'FETCH_HEAD'], market.path);
    }
    return this.fetch(label);
  }

  list(): (PluginRecord & { label: string; description: string })[] {
    return Object.entries(this.state().plugins).map(([label, r]) => {
      let description = '';
      try {
        description = readPlugin(r.path, label).manifest.description;
      } catch {
        // shown without one
      }
      return { ...r, label, description };
    });
  }

  /** Every marketplace and the plugins it offers. */
  marketplaces(): { name: string; source: string; plugins: { name: string; description: string; installed: boolean }[]; error: string | null }[] {
    const state = this.state();
    return Object.entries(state.marketplaces).map(([name, m]) => {
      try {
        const plugins = this.readMarketplace(m.path).plugins.map((p) => ({ name: String(p.name), description: String(p.description ?? ''), installed: !!state.plugins[`${p.name}@${name}`] }));
        return { name, source: m.source, plugins, error: null };
      } catch (err) {
        return { name, source: m.source, plugins: [], error: (err as Error).message };
      }
    });
  }
}
