/**
 * Agent definitions (docs/subagents-context.md "Agent definitions"): Markdown files with front matter (`name`,
 * `description`, `tools`, `model`) in Claude Code's layout, each a subagent type for spawn_subagent / map_subagents.
 * Found in the person's `<data dir>/agents/`, in installed plugins' `agents/`, and in each workspace root's
 * `.deskhand/agents/` (and `.claude/agents/` where Claude Code compatibility is on for the root, services/compat), read
 * through the guarded reader. A definition's `tools` only narrows
 * what the parent has; its body is the child's system prompt (a project's reaches the child as untrusted content).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentReader } from '../../../shared/content-reader';
import { parseFrontMatter } from '../../../shared/front-matter';
import { COMPAT_OFF, type CompatCheck } from '../compat';
import { folderStamp } from '../file-stamp';

/** Where a workspace's agent definitions may be: Deskhand's place first (it wins a name both have), then Claude Code's. */
export const PROJECT_AGENT_DIRS = [join('.deskhand', 'agents'), join('.claude', 'agents')] as const;

/** The built-in subagent types: a definition with one of these names is not used (the built-in wins). */
const BUILT_IN = new Set(['coder', 'explore', 'general', 'researcher']);
const MAX_AGENT_BYTES = 128 * 1024;
export const AGENT_NAME = /^[A-Za-z0-9][\w-]{0,63}$/;

export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names (Deskhand's or Claude Code's: `Read`, `Bash`…) the child keeps of its parent's; null: all of them. */
  tools: string[] | null;
  /** The child's model (`inherit` and absent: the parent's; Claude Code's `sonnet`/`opus`/`haiku` on Anthropic). */
  model: string | null;
  /** The body: the child's system prompt. */
  prompt: string;
  /** `person` (the data folder's), `plugin` (an installed plugin's), `project` (a workspace's: untrusted content). */
  origin: 'person' | 'plugin' | 'project';
  path: string;
  /** The plugin it came with (`name@marketplace`); its name is then `plugin:name`, as Claude Code namespaces it. */
  plugin?: string;
  /** A plugin's definition: its name without the plugin's prefix, and whether a spawn may give just that (`alias`). */
  bare?: string;
  alias?: string;
}

/** A folder of definitions outside the data folder and the workspace (an enabled plugin's `agents/`). */
export interface AgentFolder {
  dir: string;
  origin: 'plugin';
  plugin: string;
}

/**
 * `tools: Read, Grep, Bash(git diff:*)` or `[Read, Grep]`: the names, a rule's argument dropped (a definition narrows
 * which tools the child has; which calls of them are allowed stays the approval engine's).
 */
export function parseToolList(raw: string | undefined): string[] | null {
  if (raw === undefined || !raw.trim() || raw.trim() === '*') return null;
  return raw
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((t) => t.trim().replace(/^["']|["']$/g, '').replace(/\(.*\)$/, '').trim())
    .filter(Boolean);
}

/** Scans kept (one per set of workspace roots, typically one per conversation folder). */
const MAX_CACHED = 32;

export class AgentCatalog {
  constructor(private readonly opts: { dataDir: string; reader: ContentReader; folders?: () => readonly AgentFolder[]; compat?: CompatCheck }) {}

  /**
   * The last scan per set of roots, with what its folders looked like then. Asked on every model step (the system
   * prompt lists the definitions a conversation can name), a scan is made again only when a folder's stamp changed —
   * a definition added, edited, removed or relinked, a plugin enabled, compatibility turned on — so a change is seen
   * on the next step; otherwise a step costs a stat per folder that could hold definitions.
   */
  private readonly cache = new Map<string, { signature: string; result: { agents: AgentDefinition[]; notes: string[] } }>();

  private readFolder(dir: string, origin: AgentDefinition['origin'], roots: readonly string[], anchor: string, into: Map<string, AgentDefinition>, notes: string[], plugin?: string): void {
    if (!existsSync(dir)) return;
    const opts = { roots, within: dir, anchor, maxBytes: MAX_AGENT_BYTES };
    let names: string[];
    try {
      names = this.opts.reader.list(dir, opts);
    } catch (err) {
      notes.push(`${dir}: ${(err as Error).message}`);
      return;
    }
    for (const file of names) {
      if (!file.endsWith('.md')) continue;
      const path = join(dir, file);
      let text: string;
      try {
        text = this.opts.reader.read(path, opts).text;
      } catch (err) {
        notes.push(`${path}: ${(err as Error).message}`);
        continue;
      }
      const { meta, body } = parseFrontMatter(text);
      const name = meta.name || file.slice(0, -3);
      if (!AGENT_NAME.test(name)) {
        notes.push(`${path}: name "${name}" is not a type name (letters, digits, _ and -, up to 64)`);
        continue;
      }
      if (BUILT_IN.has(name) && !plugin) {
        notes.push(`${path}: "${name}" is a built-in type; the built-in is used`);
        continue;
      }
      const full = plugin ? `${plugin.split('@')[0]}:${name}` : name;
      const taken = into.get(full);
      if (taken) {
        notes.push(`${path}: "${full}" is ${taken.plugin ? `plugin ${taken.plugin}'s` : taken.origin === 'person' ? 'yours' : `the project's (${taken.path})`}, used instead`);
        continue;
      }
      if (!body.trim()) {
        notes.push(`${path}: no instructions after the front matter`);
        continue;
      }
      const model = meta.model && meta.model !== 'inherit' ? meta.model : null;
      into.set(full, {
        name: full,
        description: (meta.description || body.split('\n').find((l) => l.trim())?.trim() || '').slice(0, 300),
        tools: parseToolList(meta.tools),
        model,
        prompt: body.trim(),
        origin,
        path,
        ...(plugin ? { plugin, bare: name } : {}),
      });
    }
  }

  /** Every definition for these workspace roots (the person's first, then plugins', then each root's), and what was left out. */
  scan(roots: readonly string[]): { agents: AgentDefinition[]; notes: string[] } {
    const plugins = [...(this.opts.folders?.() ?? [])].sort((a, b) => a.plugin.localeCompare(b.plugin));
    const compat = this.opts.compat ?? COMPAT_OFF;
    const key = roots.join('\0');
    // Claude Code's folder is asked about compatibility (a store read) only where it exists.
    const signature = [
      folderStamp(join(this.opts.dataDir, 'agents')),
      ...plugins.map((f) => `${f.plugin}:${f.dir}:${folderStamp(f.dir)}`),
      ...roots.flatMap((root) =>
        PROJECT_AGENT_DIRS.map((rel) => {
          const seen = folderStamp(join(root, rel));
          return rel.startsWith('.claude') && seen !== '-' ? `${seen}#${compat(root) ? 'on' : 'off'}` : seen;
        }),
      ),
    ].join('\0');
    const cached = this.cache.get(key);
    if (cached && cached.signature === signature) return copyOf(cached.result);
    const result = this.read(roots, plugins, compat);
    this.cache.delete(key);
    this.cache.set(key, { signature, result });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return copyOf(result);
  }

  private read(roots: readonly string[], plugins: readonly AgentFolder[], compat: CompatCheck): { agents: AgentDefinition[]; notes: string[] } {
    const found = new Map<string, AgentDefinition>();
    const notes: string[] = [];
    const mine = join(this.opts.dataDir, 'agents');
    this.readFolder(mine, 'person', [mine], this.opts.dataDir, found, notes);
    for (const f of plugins) this.readFolder(f.dir, 'plugin', [f.dir], f.dir, found, notes, f.plugin);
    for (const root of roots) {
      for (const rel of PROJECT_AGENT_DIRS) {
        if (rel.startsWith('.claude') && !compat(root)) {
          if (existsSync(join(root, rel))) notes.push(`${join(root, rel)}: Claude Code compatibility is off for ${root} (deskhand compat on --cwd ${root})`);
          continue;
        }
        this.readFolder(join(root, rel), 'project', [root], root, found, notes);
      }
    }
    // A plugin's definition also answers to its bare name, when no built-in type, definition of the person's or the
    // project's, or plugin before it in label order has that name.
    const bare = new Set<string>();
    for (const a of found.values()) {
      if (a.bare === undefined) continue;
      const owner = BUILT_IN.has(a.bare) ? 'the built-in type' : found.has(a.bare) ? `${found.get(a.bare)!.origin === 'person' ? 'yours' : `the project's`}` : bare.has(a.bare) ? `plugin ${[...found.values()].find((x) => x.alias === a.bare)!.plugin}'s` : null;
      if (owner) notes.push(`${a.path}: "${a.bare}" is ${owner}; give "${a.name}" for plugin ${a.plugin}'s`);
      else {
        bare.add(a.bare);
        a.alias = a.bare;
      }
    }
    return { agents: [...found.values()].sort((a, b) => a.name.localeCompare(b.name)), notes };
  }

  list(roots: readonly string[]): AgentDefinition[] {
    return this.scan(roots).agents;
  }

  /** A definition by its name, or a plugin's by its bare name when that is unambiguous (`alias`). */
  get(name: string, roots: readonly string[]): AgentDefinition | null {
    const agents = this.list(roots);
    return agents.find((a) => a.name === name) ?? agents.find((a) => a.alias === name) ?? null;
  }
}

/** A kept scan handed out: the caller may change what it gets (the definitions are plain records). */
function copyOf(result: { agents: AgentDefinition[]; notes: string[] }): { agents: AgentDefinition[]; notes: string[] } {
  return { agents: result.agents.map((a) => ({ ...a, ...(a.tools ? { tools: [...a.tools] } : {}) })), notes: [...result.notes] };
}
