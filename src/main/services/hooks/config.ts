/**
 * Hook configuration in Claude Code's schema: a `hooks` object, event name → `[{matcher, hooks: [{type: "command",
 * command, timeout}]}]`, in the person's `settings.json` (data folder) and in a project's `.deskhand/settings.json`
 * (or `.claude/settings.json`, Claude Code's own place, where Claude Code compatibility is on for the root: services/compat). A project file counts only while the person's pin of it
 * (its bytes and the workspace scripts its commands name) holds (store module project-pins; `deskhand hooks trust`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ContentReader } from '../../../shared/content-reader';
import { DeskhandError } from '../../../shared/errors';
import { HOOK_EVENTS, type HookEventName, type HookTarget } from '../../../shared/lifecycle-hooks';
import { projectPin, projectScripts, type McpServerConfig, type ProjectScript } from '../mcp/config';

/** Claude Code's default: a hook that runs longer than this is stopped and ignored. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

const commandHook = z.looseObject({ type: z.string(), command: z.string().optional(), timeout: z.number().positive().optional() });
const matcherGroup = z.looseObject({ matcher: z.string().optional(), hooks: z.array(commandHook) });
export const hooksSchema = z.record(z.string(), z.array(matcherGroup));

/** One runnable hook, as configured. */
export interface HookEntry {
  event: HookEventName;
  matcher: string;
  command: string;
  timeoutS: number;
  /** The file it came from. */
  file: string;
  /** The person's own (data folder settings) or a project's (a workspace root's settings, pinned). */
  origin: 'person' | 'project';
  /** The workspace root of a project hook (its sandbox's writable folder, `$CLAUDE_PROJECT_DIR`). */
  root?: string;
  /** The installed plugin it came with (`name@marketplace`): it runs as the person's own, as accepted at install. */
  plugin?: string;
}

export interface ParsedHooks {
  entries: HookEntry[];
  /** What was left out and why (an event Deskhand does not fire, a hook type other than "command"). */
  skipped: string[];
}

/** Reads the `hooks` object of a parsed settings file; throws a readable error when its shape is wrong. */
export function parseHooks(json: unknown, file: string, origin: HookEntry['origin'], root?: string): ParsedHooks {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error(`${file} must hold a JSON object.`);
  const raw = (json as Record<string, unknown>).hooks;
  if (raw === undefined) return { entries: [], skipped: [] };
  const parsed = hooksSchema.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `hooks.${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`${file}: ${where}. Expected {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}}.`);
  }
  const entries: HookEntry[] = [];
  const skipped: string[] = [];
  for (const [event, groups] of Object.entries(parsed.data)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      skipped.push(`${event}: not an event Deskhand fires (it fires ${HOOK_EVENTS.join(', ')})`);
      continue;
    }
    for (const group of groups) {
      for (const hook of group.hooks) {
        if (hook.type !== 'command' || !hook.command?.trim()) {
          skipped.push(`${event}: a hook of type "${hook.type}" (only "command" hooks with a command run)`);
          continue;
        }
        entries.push({ event: event as HookEventName, matcher: group.matcher ?? '', command: hook.command, timeoutS: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S, file, origin, ...(root ? { root } : {}) });
      }
    }
  }
  return { entries, skipped };
}

/**
 * Whether a matcher takes a target, as Claude Code reads it: empty or `*` takes everything; otherwise a regular
 * expression over the whole name (`Edit|Write`, `mcp__github__.*`), tried on Deskhand's name and Claude Code's.
 */
export function matcherTakes(matcher: string, target: HookTarget | undefined): boolean {
  if (matcher === '' || matcher === '*') return true;
  if (!target) return true;
  const names = [target.name, ...(target.claudeName ? [target.claudeName] : [])];
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${matcher})$`);
  } catch {
    return names.includes(matcher);
  }
  return names.some((n) => re.test(n));
}

/** The person's hooks: `hooks` in `<data dir>/settings.json` (the same file as Deskhand's settings). */
export function personalHooks(dataDir: string): ParsedHooks & { file: string; error: string | null } {
  const file = join(dataDir, 'settings.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { file, entries: [], skipped: [], error: null };
  }
  try {
    return { file, ...parseHooks(JSON.parse(text), file, 'person'), error: null };
  } catch (err) {
    return { file, entries: [], skipped: [], error: (err as Error).message };
  }
}

/** Where a workspace's hooks may be: Deskhand's place first, then Claude Code's. */
export const PROJECT_SETTINGS = [join('.deskhand', 'settings.json'), join('.claude', 'settings.json')] as const;

/** The project settings files read in a root: Claude Code's only where compatibility is on for it. */
export const projectSettings = (claudeCompat: boolean): string[] => PROJECT_SETTINGS.filter((rel) => claudeCompat || !rel.startsWith('.claude'));

/** A project settings file with hooks, as the person approves it. */
export interface ProjectHooksFile extends ParsedHooks {
  path: string;
  root: string;
  /** The pin: sha256 of the file, and of every workspace script its commands name (a rewritten script changes it). */
  sha256: string;
  scripts: ProjectScript[];
}

/**
 * The project settings files with hooks in a workspace root (`.claude/settings.json` only with `claudeCompat`), read through the guarded reader (a link leaving the
 * workspace, a sensitive target: refused, reported in `errors`). A file without a `hooks` object is not listed.
 */
export function projectHookFiles(root: string, reader: ContentReader, claudeCompat = false): { files: ProjectHooksFile[]; errors: string[] } {
  const files: ProjectHooksFile[] = [];
  const errors: string[] = [];
  for (const rel of projectSettings(claudeCompat)) {
    const path = join(root, rel);
    let file;
    try {
      file = reader.read(path, { roots: [root], within: join(root, rel.split(/[\\/]/)[0]!), anchor: root });
    } catch (err) {
      if (!(DeskhandError.isInstance(err) && err.code === 'not_found')) errors.push(`${path}: ${(err as Error).message}`);
      continue;
    }
    let parsed: ParsedHooks;
    try {
      parsed = parseHooks(JSON.parse(file.text), path, 'project', root);
    } catch (err) {
      errors.push(err instanceof SyntaxError ? `${path} is not valid JSON (${err.message}).` : (err as Error).message);
      continue;
    }
    if (!parsed.entries.length && !parsed.skipped.length) continue;
    const scripts = parsed.entries.flatMap((e, i) => projectScripts(commandAsServer(e.command, root, i), root, reader));
    files.push({ ...parsed, path, root, sha256: projectPin(file.sha256, scripts), scripts });
  }
  return { files, errors };
}

/** A hook's command line as the MCP pin reads a server's (the words that name workspace files are hashed). */
function commandAsServer(command: string, root: string, i: number): McpServerConfig {
  const words = command
    .replace(/"\$(?:CLAUDE|DESKHAND)_PROJECT_DIR"|\$\{?(?:CLAUDE|DESKHAND)_PROJECT_DIR\}?/g, root)
    .split(/\s+/)
    .map((w) => w.replace(/^["']|["']$/g, ''))
    .filter(Boolean);
  return { name: `hook ${i + 1}`, transport: 'stdio', command: words[0] ?? '', args: words.slice(1), env: {}, cwd: root } as McpServerConfig;
}
