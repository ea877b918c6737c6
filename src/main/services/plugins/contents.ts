/**
 * What a plugin folder brings, in Claude Code's layout (docs/plugins.md): `.claude-plugin/plugin.json` (or
 * `.deskhand-plugin/plugin.json`), and any of `commands/*.md`, `agents/*.md`, `skills/<name>/SKILL.md`,
 * `hooks/hooks.json` and `.mcp.json`. `${CLAUDE_PLUGIN_ROOT}` in a hook's command or a server's command line, args
 * and env is the plugin's installed folder. Pure reads of Deskhand's own copy (the data folder), no process.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseFrontMatter } from '../../../shared/front-matter';
import { parseHooks, type HookEntry } from '../hooks/config';
import { parseServerConfig, SERVER_NAME_RE, type McpServerConfig } from '../mcp/config';

export const MANIFESTS = [join('.claude-plugin', 'plugin.json'), join('.deskhand-plugin', 'plugin.json')] as const;
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export interface PluginManifest {
  name: string;
  version: string | null;
  description: string;
}

export interface PluginContents {
  root: string;
  manifest: PluginManifest;
  commands: string[];
  agents: string[];
  skills: string[];
  hooks: HookEntry[];
  servers: McpServerConfig[];
  /** What could not be read (a malformed hooks.json or .mcp.json): the rest still counts. */
  problems: string[];
  /**
   * sha256 over every file that runs something — all but `commands/`, `agents/`, `skills/` and `.git` — so an update
   * that changes a hook, a server, or a script either names, asks again.
   */
  runsDigest: string;
}

const PLUGIN_ROOT_VAR = /\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b|\$\{DESKHAND_PLUGIN_ROOT\}/g;
const withRoot = (s: string, root: string) => s.replace(PLUGIN_ROOT_VAR, root);

export function readManifest(root: string): PluginManifest {
  const file = MANIFESTS.map((m) => join(root, m)).find((f) => existsSync(f));
  if (!file) throw new Error(`${root} is not a plugin: it has no .claude-plugin/plugin.json (or .deskhand-plugin/plugin.json).`);
  let json: { name?: unknown; version?: unknown; description?: unknown };
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as typeof json;
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}).`);
  }
  if (typeof json.name !== 'string' || !PLUGIN_NAME.test(json.name)) throw new Error(`${file}: "name" must be a plugin name (letters, digits, ., _ and -).`);
  return { name: json.name, version: typeof json.version === 'string' ? json.version : null, description: typeof json.description === 'string' ? json.description : '' };
}

function mdNames(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .map((n) => n.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/** Agent definitions by the name they give (front matter `name`, else the file's). */
function agentNames(dir: string): string[] {
  return mdNames(dir).map((stem) => {
    try {
      return parseFrontMatter(readFileSync(join(dir, `${stem}.md`), 'utf8')).meta.name || stem;
    } catch {
      return stem;
    }
  });
}

/** Every file under a folder (not following links, no `.git`), relative paths sorted. */
function filesUnder(root: string, dir = root, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names.sort()) {
    if (n === '.git') continue;
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory()) filesUnder(root, p, out);
    else if (st?.isFile()) out.push(relative(root, p));
  }
  return out;
}

export function runsDigest(root: string): string {
  const h = createHash('sha256');
  for (const rel of filesUnder(root)) {
    const top = rel.split(sep)[0];
    if (top === 'commands' || top === 'agents' || top === 'skills') continue;
    h.update(`${rel}\0`).update(readFileSync(join(root, rel))).update('\0');
  }
  return h.digest('hex');
}

/** A server's name in Deskhand: `<plugin>-<server>`, cut to the 40 characters MCP names allow. */
export function pluginServerName(plugin: string, server: string): string {
  return `${plugin}-${server}`.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 40);
}

export function readPlugin(root: string, label: string): PluginContents {
  const manifest = readManifest(root);
  const problems: string[] = [];
  let hooks: HookEntry[] = [];
  const hooksFile = join(root, 'hooks', 'hooks.json');
  if (existsSync(hooksFile)) {
    try {
      const parsed = parseHooks(JSON.parse(readFileSync(hooksFile, 'utf8')), hooksFile, 'person');
      hooks = parsed.entries.map((e) => ({ ...e, command: withRoot(e.command, root), plugin: label }));
      problems.push(...parsed.skipped.map((s) => `hooks/hooks.json: ${s}`));
    } catch (err) {
      problems.push(`hooks/hooks.json: ${(err as Error).message}`);
    }
  }
  const servers: McpServerConfig[] = [];
  const mcpFile = join(root, '.mcp.json');
  if (existsSync(mcpFile)) {
    try {
      const json = JSON.parse(readFileSync(mcpFile, 'utf8')) as { mcpServers?: Record<string, Record<string, unknown>> };
      for (const [name, raw] of Object.entries(json.mcpServers ?? {})) {
        const full = pluginServerName(manifest.name, name);
        if (!SERVER_NAME_RE.test(full)) throw new Error(`server "${name}": its name cannot become an MCP server name`);
        const url = typeof raw.url === 'string' ? raw.url : null;
        const config = url
          ? { name: full, transport: raw.type === 'sse' ? 'sse' : 'http', url: withRoot(url, root), source: `plugin ${label}` }
          : {
              name: full,
              transport: 'stdio',
              command: withRoot(String(raw.command ?? ''), root),
              args: Array.isArray(raw.args) ? raw.args.map((a) => withRoot(String(a), root)) : [],
              ...(raw.env && typeof raw.env === 'object' ? { env: Object.fromEntries(Object.entries(raw.env as Record<string, unknown>).map(([k, v]) => [k, withRoot(String(v), root)])) } : {}),
              cwd: root,
              source: `plugin ${label}`,
            };
        servers.push(parseServerConfig(config));
      }
    } catch (err) {
      problems.push(`.mcp.json: ${(err as Error).message}`);
    }
  }
  let skills: string[] = [];
  try {
    skills = readdirSync(join(root, 'skills'))
      .filter((n) => existsSync(join(root, 'skills', n, 'SKILL.md')))
      .sort();
  } catch {
    // no skills
  }
  return { root, manifest, commands: mdNames(join(root, 'commands')), agents: agentNames(join(root, 'agents')), skills, hooks, servers, problems, runsDigest: runsDigest(root) };
}

/** What installing (or updating) asks about: everything the plugin brings and what each can do. */
export function describePlugin(c: PluginContents, label: string): string {
  const lines = [`Plugin ${label}${c.manifest.version ? ` ${c.manifest.version}` : ''}${c.manifest.description ? `: ${c.manifest.description}` : ''}`];
  const hooks = c.hooks.map((h) => `    ${h.event}${h.matcher ? ` [${h.matcher}]` : ''}: ${h.command}`);
  const servers = c.servers.map((s) => `    ${s.name}: ${s.transport === 'stdio' ? [s.command, ...(s.args ?? [])].join(' ') : s.url}`);
  if (hooks.length) lines.push(`  Hooks (run as your own hooks, outside the sandbox, on every matching event; a PreToolUse hook can refuse or ask, never clear past your rules):`, ...hooks);
  if (servers.length) lines.push(`  MCP servers (start as programs on this machine; every tool call asks until you set a tier):`, ...servers);
  // Namespaced as Claude Code does: plugin kit's hello is /kit:hello (the bare /hello too while no one else has it).
  const ns = label.split('@')[0]!;
  if (c.commands.length) lines.push(`  Slash commands (prompt templates you run): ${c.commands.map((n) => `/${ns}:${n}`).join(', ')}`);
  if (c.agents.length) lines.push(`  Agent definitions (subagent types, within the parent's tools): ${c.agents.map((n) => `${ns}:${n}`).join(', ')}`);
  if (c.skills.length) lines.push(`  Skills (instructions the model may load): ${c.skills.join(', ')}`);
  if (c.problems.length) lines.push(`  Not used: ${c.problems.join('; ')}`);
  if (lines.length === 1) lines.push('  (nothing Deskhand uses)');
  return lines.join('\n');
}
