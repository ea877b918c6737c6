/**
 * Slash commands (docs/commands.md): Markdown prompt templates with front matter (`description`, `argument-hint`,
 * `allowed-tools`, `model`), in Claude Code's layout. Found in the person's `<data dir>/commands/` and in each
 * workspace root's `.deskhand/commands/` (and `.claude/commands/` where Claude Code compatibility is on for the root,
 * services/compat) (a subfolder makes `folder:name`), read through the guarded reader. `/name arguments` becomes the template with `$ARGUMENTS` and `$1`…`$9` filled in. The person's
 * templates are their own words; a project's reach the model as untrusted content.
 */
import { join, relative, sep } from 'node:path';
import type { ContentReader } from '../../../shared/content-reader';
import { parseFrontMatter } from '../../../shared/front-matter';
import type { ExpandedCommand, PromptCommandInfo, PromptCommands } from '../../../shared/prompt-commands';
import { COMPAT_OFF, type CompatCheck } from '../compat';

export type { ExpandedCommand, PromptCommandInfo, PromptCommands } from '../../../shared/prompt-commands';

/** Where a workspace's commands may be: Deskhand's place first (it wins a name both have), then Claude Code's. */
export const PROJECT_COMMAND_DIRS = [join('.deskhand', 'commands'), join('.claude', 'commands')] as const;

/** The project command folders read in a root: Claude Code's only where compatibility is on for it. */
export const projectCommandDirs = (root: string, compat: CompatCheck): string[] => PROJECT_COMMAND_DIRS.filter((rel) => !rel.startsWith('.claude') || compat(root)).map((rel) => join(root, rel));

const MAX_COMMAND_BYTES = 128 * 1024;
/**
 * A command name as typed: letters, digits, `_`, `-`, and `:` between a subfolder and the name; the first part may
 * hold dots, as a plugin's namespace does (`/acme.kit:hello`).
 */
const INVOCATION = /^\/([A-Za-z0-9_][\w.-]*(?::[\w-]+)*)(?:[ \t]+([\s\S]*))?$/;

interface CommandFile extends PromptCommandInfo {
  body: string;
}

/**
 * Splits arguments as a shell would for `$1`…: words, with "double" or 'single' quotes keeping spaces together.
 * `$ARGUMENTS` is the text as typed.
 */
export function splitArguments(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** The template with its arguments: `$ARGUMENTS`, `$1`…`$9`; with neither, the arguments follow the template. */
export function fillTemplate(body: string, args: string): string {
  const words = splitArguments(args);
  const uses = /\$ARGUMENTS|\$[1-9]/.test(body);
  const filled = body.replace(/\$ARGUMENTS|\$([1-9])/g, (all, n: string | undefined) => (n ? (words[Number(n) - 1] ?? '') : args));
  return !uses && args.trim() ? `${filled.trimEnd()}\n\nARGUMENTS: ${args}` : filled;
}

/** A plugin's namespace: its name (the label's part before `@`), as Claude Code writes `/plugin-name:command`. */
export const pluginNamespace = (label: string): string => label.split('@')[0]!;

/** Where a command came from, for a clash note. */
const whose = (c: PromptCommandInfo): string => (c.origin === 'plugin' ? `plugin ${c.plugin}'s` : c.origin === 'person' ? 'yours' : `the project's (${c.path})`);

/** The commands found for some roots: by full name, the bare names plugins' commands answer to, and the clashes. */
interface Found {
  byName: Map<string, CommandFile>;
  bare: Map<string, CommandFile>;
  notes: string[];
}

export class CommandCatalog implements PromptCommands {
  constructor(private readonly opts: { dataDir: string; reader: ContentReader; folders?: () => readonly { dir: string; plugin: string }[]; compat?: CompatCheck }) {}

  /** The commands of one folder (and its subfolders, one level); a name already taken is left out, with a note. */
  private readFolder(dir: string, origin: PromptCommandInfo['origin'], roots: readonly string[], anchor: string, found: Found, plugin?: string): void {
    const opts = { roots, within: dir, anchor, maxBytes: MAX_COMMAND_BYTES };
    const visit = (folder: string, depth: number) => {
      let names: string[];
      try {
        names = this.opts.reader.list(folder, opts);
      } catch {
        return;
      }
      for (const name of names) {
        const path = join(folder, name);
        if (!name.endsWith('.md')) {
          if (depth === 0 && /^[\w-]+$/.test(name)) visit(path, 1);
          continue;
        }
        const stem = name.slice(0, -3);
        if (!/^[\w-]+$/.test(stem)) continue;
        const bare = relative(dir, path).slice(0, -3).split(sep).join(':');
        const command = plugin ? `${pluginNamespace(plugin)}:${bare}` : bare;
        const taken = found.byName.get(command);
        if (taken) {
          found.notes.push(`/${command}: ${whose(taken)} is used; ${path} is not`);
          continue;
        }
        let text: string;
        try {
          text = this.opts.reader.read(path, opts).text;
        } catch {
          continue;
        }
        const { meta, body } = parseFrontMatter(text);
        const firstLine = body.split('\n').find((l) => l.trim())?.trim() ?? '';
        found.byName.set(command, {
          name: command,
          description: meta.description || firstLine.replace(/^#+\s*/, '').slice(0, 120),
          argumentHint: meta['argument-hint'] || null,
          origin,
          path,
          allowedTools: meta['allowed-tools'] || null,
          model: meta.model || null,
          ...(plugin ? { plugin, bare } : {}),
          body,
        });
      }
    };
    visit(dir, 0);
  }

  /**
   * Every command for these workspace roots: the person's first (their name wins), then enabled plugins' as
   * `plugin:name` (in label order), then each root's. A plugin's command also answers to its bare name when no
   * command of the person's or the project's has it and no plugin before it in label order does (noted otherwise).
   */
  scan(roots: readonly string[]): { commands: PromptCommandInfo[]; notes: string[] } {
    const found = this.find(roots);
    const commands = [...found.byName.values()].map(({ body: _body, ...info }) => (info.bare !== undefined && found.bare.get(info.bare)?.name === info.name ? { ...info, alias: info.bare } : info));
    return { commands: commands.sort((a, b) => a.name.localeCompare(b.name)), notes: found.notes };
  }

  private find(roots: readonly string[]): Found {
    const found: Found = { byName: new Map(), bare: new Map(), notes: [] };
    const mine = join(this.opts.dataDir, 'commands');
    this.readFolder(mine, 'person', [mine], this.opts.dataDir, found);
    const plugins = [...(this.opts.folders?.() ?? [])].sort((a, b) => a.plugin.localeCompare(b.plugin));
    for (const f of plugins) this.readFolder(f.dir, 'plugin', [f.dir], f.dir, found, f.plugin);
    for (const root of roots) for (const dir of projectCommandDirs(root, this.opts.compat ?? COMPAT_OFF)) this.readFolder(dir, 'project', [root], root, found);
    for (const c of found.byName.values()) {
      if (c.bare === undefined) continue;
      const owner = found.byName.get(c.bare) ?? found.bare.get(c.bare);
      if (owner) found.notes.push(`/${c.bare}: ${whose(owner)} is used; plugin ${c.plugin}'s is /${c.name}`);
      else found.bare.set(c.bare, c);
    }
    return found;
  }

  list(roots: readonly string[]): PromptCommandInfo[] {
    return this.scan(roots).commands;
  }

  expand(prompt: string, roots: readonly string[]): ExpandedCommand | null {
    const m = INVOCATION.exec(prompt.trim());
    if (!m) return null;
    const found = this.find(roots);
    const file = found.byName.get(m[1]!) ?? found.bare.get(m[1]!);
    if (!file) return null;
    const { body, ...command } = file;
    const text = fillTemplate(body, (m[2] ?? '').trim());
    return { command, text, untrustedSource: command.origin === 'project' ? `project command /${command.name} (${command.path})` : null };
  }
}
