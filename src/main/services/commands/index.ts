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
/** A command name as typed: letters, digits, `_`, `-`, and `:` between a subfolder and the name. */
const INVOCATION = /^\/([A-Za-z0-9_][\w-]*(?::[\w-]+)*)(?:[ \t]+([\s\S]*))?$/;

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

export class CommandCatalog implements PromptCommands {
  constructor(private readonly opts: { dataDir: string; reader: ContentReader; folders?: () => readonly { dir: string; plugin: string }[]; compat?: CompatCheck }) {}

  /** The commands of one folder (and its subfolders, one level), first found wins a name. */
  private readFolder(dir: string, origin: PromptCommandInfo['origin'], roots: readonly string[], anchor: string, into: Map<string, CommandFile>): void {
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
        const command = relative(dir, path).slice(0, -3).split(sep).join(':');
        if (into.has(command)) continue;
        let text: string;
        try {
          text = this.opts.reader.read(path, opts).text;
        } catch {
          continue;
        }
        const { meta, body } = parseFrontMatter(text);
        const firstLine = body.split('\n').find((l) => l.trim())?.trim() ?? '';
        into.set(command, {
          name: command,
          description: meta.description || firstLine.replace(/^#+\s*/, '').slice(0, 120),
          argumentHint: meta['argument-hint'] || null,
          origin,
          path,
          allowedTools: meta['allowed-tools'] || null,
          model: meta.model || null,
          body,
        });
      }
    };
    visit(dir, 0);
  }

  /** Every command for these workspace roots: the person's first (their name wins), then each root's. */
  private all(roots: readonly string[]): Map<string, CommandFile> {
    const found = new Map<string, CommandFile>();
    const mine = join(this.opts.dataDir, 'commands');
    this.readFolder(mine, 'person', [mine], this.opts.dataDir, found);
    for (const f of this.opts.folders?.() ?? []) this.readFolder(f.dir, 'plugin', [f.dir], f.dir, found);
    for (const root of roots) for (const dir of projectCommandDirs(root, this.opts.compat ?? COMPAT_OFF)) this.readFolder(dir, 'project', [root], root, found);
    return found;
  }

  list(roots: readonly string[]): PromptCommandInfo[] {
    return [...this.all(roots).values()].map(({ body: _body, ...info }) => info).sort((a, b) => a.name.localeCompare(b.name));
  }

  expand(prompt: string, roots: readonly string[]): ExpandedCommand | null {
    const m = INVOCATION.exec(prompt.trim());
    if (!m) return null;
    const file = this.all(roots).get(m[1]!);
    if (!file) return null;
    const { body, ...command } = file;
    const text = fillTemplate(body, (m[2] ?? '').trim());
    return { command, text, untrustedSource: command.origin === 'project' ? `project command /${command.name} (${command.path})` : null };
  }
}
