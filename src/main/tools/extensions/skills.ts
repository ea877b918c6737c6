/**
 * Skills: folders holding a SKILL.md (front matter `name` and `description`, then Markdown sections), found in the
 * person's skill folder (`<data dir>/skills`) and the workspace's (`.deskhand/skills`, a workspace one winning over a
 * person's one of the same name). Only names and descriptions reach the model (find_skills) until it loads one whole
 * (load_skill) or one section (load_skill_section).
 *
 * Every skill file is read through the guarded reader (shared/content-reader.ts): a SKILL.md, a skill folder or any
 * folder above it that is a symbolic link leaving the skill's folder is refused (and named in find_skills), as are
 * sensitive targets and hard-linked files. A workspace skill is the workspace's content, so what it says is
 * untrusted (an envelope, and the run is tainted); its file is a declared read of load_skill, judged by the approval
 * engine. The person's own skills (`<data dir>/skills`) are theirs, and trusted.
 */
import { parseFrontMatter } from '../../../shared/front-matter';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { ContentReader } from '../../../shared/content-reader';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { defineTool, type Effects, type EffectsContext, type ToolDefinition } from '../../runtime/tool';

export interface Skill {
  name: string;
  description: string;
  path: string;
  scope: 'user' | 'workspace';
  folder: SkillFolder;
}

const MAX_SKILL_BYTES = 256 * 1024;
const MAX_LOAD_CHARS = 60_000;

/** Splits `---\nkey: value\n---\nbody`; values may be quoted (shared/front-matter.ts, also read by slash commands). */
export const parseSkill = parseFrontMatter;

/** The sections of a Markdown body: each heading with its text up to the next heading of the same or a higher level. */
export function sections(body: string): { title: string; level: number; text: string }[] {
  const lines = body.split('\n');
  const heads: { title: string; level: number; line: number }[] = [];
  let fence = false;
  lines.forEach((line, i) => {
    if (/^(```|~~~)/.test(line)) fence = !fence;
    const h = !fence && /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) heads.push({ title: h[2]!, level: h[1]!.length, line: i });
  });
  return heads.map((h, k) => {
    const next = heads.slice(k + 1).find((n) => n.level <= h.level);
    return { title: h.title, level: h.level, text: lines.slice(h.line, next ? next.line : lines.length).join('\n').trimEnd() };
  });
}

/** Where skills are looked for: a folder of skill folders, the folder it was found in, and whose content it is. */
export interface SkillFolder {
  dir: string;
  scope: Skill['scope'];
  /** No symbolic link may stand between this folder and a skill's folder (the workspace root; the skills folder). */
  anchor: string;
  /** The folders the content belongs to (the workspace roots; the person's skills folder). */
  roots: readonly string[];
}

/** A skill folder whose SKILL.md the guarded reader refused (a link leaving its folder, a sensitive target…). */
export interface RefusedSkill {
  entry: string;
  scope: Skill['scope'];
  reason: string;
}

const readOpts = (folder: SkillFolder, skillDir: string) => ({ roots: folder.roots, within: skillDir, anchor: folder.anchor, maxBytes: MAX_SKILL_BYTES });

function readSkill(reader: ContentReader, folder: SkillFolder, entry: string): Skill | RefusedSkill | null {
  const dir = join(folder.dir, entry);
  const path = join(dir, 'SKILL.md');
  try {
    const file = reader.read(path, readOpts(folder, dir));
    const { meta } = parseSkill(file.text);
    const name = meta.name || entry;
    return { name, description: meta.description ?? '', path, scope: folder.scope, folder };
  } catch (err) {
    // Not a skill folder (a plain file, no SKILL.md): nothing to say. Anything the guard refused is reported.
    if (DeskhandError.isInstance(err) && err.code === 'denied' && !/ENOTDIR|not a regular file|no such file/.test(err.message)) return { entry, scope: folder.scope, reason: err.message };
    return null;
  }
}

/** Every skill under the folders (each skill is a sub-folder with SKILL.md); later folders win on a name clash. */
export function discoverSkills(reader: ContentReader, folders: readonly SkillFolder[]): { skills: Skill[]; refused: RefusedSkill[] } {
  const byName = new Map<string, Skill>();
  const refused: RefusedSkill[] = [];
  for (const folder of folders) {
    let entries: string[];
    try {
      entries = reader.list(folder.dir, { roots: folder.roots, within: folder.dir, anchor: folder.anchor });
    } catch (err) {
      refused.push({ entry: folder.dir, scope: folder.scope, reason: (err as Error).message });
      continue;
    }
    for (const entry of entries) {
      const skill = readSkill(reader, folder, entry);
      if (!skill) continue;
      if ('reason' in skill) refused.push(skill);
      else byName.set(skill.name.toLowerCase(), skill);
    }
  }
  return { skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), refused };
}

export function createSkillTools(userSkillsDir: string, reader: ContentReader, pluginSkillDirs?: () => readonly string[]): ToolDefinition[] {
  const folders = (cwd: string, roots: readonly string[]): SkillFolder[] => [
    { dir: userSkillsDir, scope: 'user', anchor: userSkillsDir, roots: [userSkillsDir] },
    // Enabled plugins' skills: the person accepted them at install, so they count as the person's own.
    ...(pluginSkillDirs?.() ?? []).map((dir) => ({ dir, scope: 'user' as const, anchor: dir, roots: [dir] })),
    ...[...new Set([...roots, cwd])].map((r) => ({ dir: join(r, '.deskhand', 'skills'), scope: 'workspace' as const, anchor: r, roots })),
  ];
  const find = (name: string, cwd: string, roots: readonly string[]): Skill => {
    const { skills: all, refused } = discoverSkills(reader, folders(cwd, roots));
    const want = name.trim().toLowerCase();
    const skill = all.find((s) => s.name.toLowerCase() === want);
    if (skill) return skill;
    const no = refused.find((r) => r.entry.toLowerCase() === want);
    if (no) throw new ToolError(`The skill "${name}" was not loaded: ${no.reason}`, 'denied');
    throw new ToolError(`No skill named "${name}". Skills: ${all.map((s) => s.name).join(', ') || 'none'} (find_skills lists them with descriptions).`, 'not_found');
  };
  /** Read again at use, through the guard: what was judged when the skill was found must still hold. */
  const load = (skill: Skill) => {
    try {
      return parseSkill(reader.read(skill.path, readOpts(skill.folder, dirname(skill.path))).text);
    } catch (err) {
      if (DeskhandError.isInstance(err)) throw new ToolError(`The skill "${skill.name}" was not loaded: ${err.message}`, 'denied');
      throw err;
    }
  };
  /** Workspace skills are content of the workspace (it may have arrived with a clone): untrusted, like a fetched page. */
  const untrusted = (skills: readonly Skill[], refused: readonly RefusedSkill[] = []) => {
    const ws = [...skills.filter((s) => s.scope === 'workspace').map((s) => s.path), ...refused.filter((r) => r.scope === 'workspace').map((r) => r.entry)];
    return ws.length ? { untrustedSource: `workspace skill${ws.length > 1 ? 's' : ''} ${ws.join(', ')}` } : {};
  };
  /** The skill file a load reads, declared so the approval engine judges it like any read (workspace skills). */
  const skillEffects = (args: { name: string }, ctx: EffectsContext): Effects => {
    try {
      const skill = find(args.name, ctx.cwd, ctx.workspaceRoots);
      return skill.scope === 'workspace' ? { paths: { read: [skill.path] } } : {};
    } catch {
      return {};
    }
  };
  const name = z.string().min(1).max(200).describe('The skill\'s name, as find_skills lists it.');

  const findSkills = defineTool({
    name: 'find_skills',
    description:
      'Find skills: instructions for particular tasks that the person or the workspace keeps as SKILL.md files. Returns ' +
      'each skill\'s name and description; load_skill loads one when it fits the task, load_skill_section one part.',
    params: () => z.object({ query: z.string().max(200).optional().describe('Words to match against names and descriptions; omit to list all.') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: { title: 'Find skills', icon: 'search', summary: (a) => a.query ?? 'all' },
    async execute(args, ctx) {
      const words = (args.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const { skills: all, refused } = discoverSkills(reader, folders(ctx.state.cwd, ctx.state.workspaceRoots));
      const hits = all.filter((s) => words.every((w) => `${s.name} ${s.description}`.toLowerCase().includes(w)));
      const skipped = refused.length ? `\nNot loaded (refused by the path guard): ${refused.map((r) => `${r.entry} (${r.scope}): ${r.reason}`).join('; ')}` : '';
      if (!hits.length) return { output: (all.length ? `No skill matches "${args.query}". Skills: ${all.map((s) => s.name).join(', ')}.` : 'There are no skills (folders with SKILL.md in the skills folder of Deskhand\'s data or the workspace\'s .deskhand/skills).') + skipped, ...untrusted(all, refused) };
      return { output: hits.map((s) => `${s.name} (${s.scope}): ${s.description || '(no description)'}`).join('\n') + skipped, ...untrusted(hits, refused) };
    },
  });

  const loadSkill = defineTool({
    name: 'load_skill',
    description: 'Load a skill\'s instructions (its whole SKILL.md without the front matter) and the list of its sections.',
    params: () => z.object({ name }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    effects: skillEffects,
    presentation: { title: 'Load a skill', icon: 'memory', summary: (a) => a.name },
    async execute(args, ctx) {
      const skill = find(args.name, ctx.state.cwd, ctx.state.workspaceRoots);
      const { body } = load(skill);
      const heads = sections(body).map((s) => `${'  '.repeat(s.level - 1)}- ${s.title}`);
      const text = body.length > MAX_LOAD_CHARS ? `${body.slice(0, MAX_LOAD_CHARS)}\n[… cut; load_skill_section loads one section]` : body;
      return { output: `Skill ${skill.name} (${skill.path})\nSections:\n${heads.join('\n') || '(none)'}\n\n${text}`, ...untrusted([skill]) };
    },
  });

  const loadSection = defineTool({
    name: 'load_skill_section',
    description: 'Load one section of a skill by its heading (as load_skill or find_skills shows it), with its sub-sections.',
    params: () => z.object({ name, section: z.string().min(1).max(300).describe('The section heading, e.g. "Usage".') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    effects: skillEffects,
    presentation: { title: 'Load a skill section', icon: 'memory', summary: (a) => `${a.name}: ${a.section}` },
    async execute(args, ctx) {
      const skill = find(args.name, ctx.state.cwd, ctx.state.workspaceRoots);
      const all = sections(load(skill).body);
      const want = args.section.replace(/^#+\s*/, '').trim().toLowerCase();
      const hit = all.find((s) => s.title.toLowerCase() === want) ?? all.find((s) => s.title.toLowerCase().includes(want));
      if (!hit) throw new ToolError(`Skill ${skill.name} has no section "${args.section}". Sections: ${all.map((s) => s.title).join(', ') || 'none'}.`, 'not_found');
      return { output: hit.text.length > MAX_LOAD_CHARS ? `${hit.text.slice(0, MAX_LOAD_CHARS)}\n[… cut]` : hit.text, ...untrusted([skill]) };
    },
  });

  return [findSkills, loadSkill, loadSection] as ToolDefinition[];
}
