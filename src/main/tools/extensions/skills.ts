/**
 * Skills: folders holding a SKILL.md (front matter `name` and `description`, then Markdown sections), found in the
 * person's skill folder (`<data dir>/skills`) and the workspace's (`.deskhand/skills`, a workspace one winning over a
 * person's one of the same name). Only names and descriptions reach the model (find_skills) until it loads one whole
 * (load_skill) or one section (load_skill_section).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolDefinition } from '../../runtime/tool';

export interface Skill {
  name: string;
  description: string;
  path: string;
  scope: 'user' | 'workspace';
}

const MAX_SKILL_BYTES = 256 * 1024;
const MAX_LOAD_CHARS = 60_000;

/** Splits `---\nkey: value\n---\nbody`; values may be quoted. */
export function parseSkill(text: string): { meta: Record<string, string>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { meta: {}, body: text };
  const meta: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (kv) meta[kv[1]!.toLowerCase()] = kv[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return { meta, body: text.slice(m[0].length) };
}

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

function readSkill(dir: string, scope: Skill['scope']): Skill | null {
  const path = join(dir, 'SKILL.md');
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_SKILL_BYTES) return null;
    const { meta } = parseSkill(readFileSync(path, 'utf8'));
    const name = meta.name || dir.split('/').pop()!;
    return { name, description: meta.description ?? '', path, scope };
  } catch {
    return null;
  }
}

/** Every skill under the folders (each skill is a sub-folder with SKILL.md); later folders win on a name clash. */
export function discoverSkills(folders: readonly { dir: string; scope: Skill['scope'] }[]): Skill[] {
  const byName = new Map<string, Skill>();
  for (const { dir, scope } of folders) {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      const skill = readSkill(join(dir, entry), scope);
      if (skill) byName.set(skill.name.toLowerCase(), skill);
    }
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function createSkillTools(userSkillsDir: string): ToolDefinition[] {
  const folders = (cwd: string, roots: readonly string[]) => [
    { dir: userSkillsDir, scope: 'user' as const },
    ...[...new Set([...roots, cwd])].map((r) => ({ dir: join(r, '.deskhand', 'skills'), scope: 'workspace' as const })),
  ];
  const find = (name: string, cwd: string, roots: readonly string[]): Skill => {
    const all = discoverSkills(folders(cwd, roots));
    const skill = all.find((s) => s.name.toLowerCase() === name.trim().toLowerCase());
    if (!skill) throw new ToolError(`No skill named "${name}". Skills: ${all.map((s) => s.name).join(', ') || 'none'} (find_skills lists them with descriptions).`, 'not_found');
    return skill;
  };
  const load = (skill: Skill) => parseSkill(readFileSync(skill.path, 'utf8'));
  const name = z.string().min(1).max(200).describe('The skill\'s name, as find_skills lists it.');

  const findSkills = defineTool({
    name: 'find_skills',
    description:
      'Find skills: instructions for particular tasks that the person or the workspace keeps as SKILL.md files. Returns ' +
      'each skill\'s name and description; load_skill loads one when it fits the task, load_skill_section one part.',
    params: z.object({ query: z.string().max(200).optional().describe('Words to match against names and descriptions; omit to list all.') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Find skills', icon: 'search', summary: (a) => a.query ?? 'all' },
    async execute(args, ctx) {
      const words = (args.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const all = discoverSkills(folders(ctx.state.cwd, ctx.state.workspaceRoots));
      const hits = all.filter((s) => words.every((w) => `${s.name} ${s.description}`.toLowerCase().includes(w)));
      if (!hits.length) return { output: all.length ? `No skill matches "${args.query}". Skills: ${all.map((s) => s.name).join(', ')}.` : 'There are no skills (folders with SKILL.md in the skills folder of Deskhand\'s data or the workspace\'s .deskhand/skills).' };
      return { output: hits.map((s) => `${s.name} (${s.scope}): ${s.description || '(no description)'}`).join('\n') };
    },
  });

  const loadSkill = defineTool({
    name: 'load_skill',
    description: 'Load a skill\'s instructions (its whole SKILL.md without the front matter) and the list of its sections.',
    params: z.object({ name }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Load a skill', icon: 'memory', summary: (a) => a.name },
    async execute(args, ctx) {
      const skill = find(args.name, ctx.state.cwd, ctx.state.workspaceRoots);
      const { body } = load(skill);
      const heads = sections(body).map((s) => `${'  '.repeat(s.level - 1)}- ${s.title}`);
      const text = body.length > MAX_LOAD_CHARS ? `${body.slice(0, MAX_LOAD_CHARS)}\n[… cut; load_skill_section loads one section]` : body;
      return { output: `Skill ${skill.name} (${skill.path})\nSections:\n${heads.join('\n') || '(none)'}\n\n${text}` };
    },
  });

  const loadSection = defineTool({
    name: 'load_skill_section',
    description: 'Load one section of a skill by its heading (as load_skill or find_skills shows it), with its sub-sections.',
    params: z.object({ name, section: z.string().min(1).max(300).describe('The section heading, e.g. "Usage".') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Load a skill section', icon: 'memory', summary: (a) => `${a.name}: ${a.section}` },
    async execute(args, ctx) {
      const skill = find(args.name, ctx.state.cwd, ctx.state.workspaceRoots);
      const all = sections(load(skill).body);
      const want = args.section.replace(/^#+\s*/, '').trim().toLowerCase();
      const hit = all.find((s) => s.title.toLowerCase() === want) ?? all.find((s) => s.title.toLowerCase().includes(want));
      if (!hit) throw new ToolError(`Skill ${skill.name} has no section "${args.section}". Sections: ${all.map((s) => s.title).join(', ') || 'none'}.`, 'not_found');
      return { output: hit.text.length > MAX_LOAD_CHARS ? `${hit.text.slice(0, MAX_LOAD_CHARS)}\n[… cut]` : hit.text };
    },
  });

  return [findSkills, loadSkill, loadSection] as ToolDefinition[];
}
