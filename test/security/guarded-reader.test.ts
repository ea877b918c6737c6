/**
 * Round three, the guarded reader and skills through links (issue 29, mechanism 3), against real files and links in
 * temp folders: every spelling of a link that leaves a skill's folder — absolute, relative `../..`, chained, through
 * `/proc/self/root`, a linked skill folder, a linked `.deskhand` or `skills` folder, a link inside the folder to a
 * folder outside, a hard link — is refused by load_skill and named by find_skills, and the target's bytes never
 * appear in what the tool returns. Links that stay inside the folder load; workspace skills come back untrusted and
 * their file is a declared read of load_skill.
 */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GuardedContentReader } from '../../src/main/runtime/context/content-reader';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { createSkillTools } from '../../src/main/tools/extensions/skills';
import { createPlanFamily } from '../../src/main/tools/plan';
import { makeContext, tempDir } from '../support/tool-context';

const MARK = 'Netrc-Secret-Pw-93kQz71Lm';
let base: string;
let ws: string;
let home: string;
let data: string;
let reader: GuardedContentReader;
let tools: Record<string, ToolDefinition>;

const skillMd = (name: string, body = 'Do the thing.') => `---\nname: ${name}\ndescription: the ${name} skill\n---\n# ${name}\n${body}\n`;
const skills = () => join(ws, '.deskhand', 'skills');

beforeAll(() => {
  base = tempDir('deskhand-reader-');
  ws = join(base, 'ws');
  home = join(base, 'home');
  data = join(base, 'data');
  for (const d of [skills(), join(home, '.ssh'), join(base, 'outside'), join(base, 'outside-skill'), join(base, 'outside-skills', 'y'), join(data, 'skills')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.netrc'), `machine example.com login me password ${MARK}\n`);
  writeFileSync(join(home, '.bash_history'), `export TOKEN=${MARK}\n`);
  writeFileSync(join(home, '.ssh', 'id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${MARK}\n`);
  writeFileSync(join(base, 'outside', 'notes.md'), skillMd('notes', MARK));
  writeFileSync(join(base, 'outside-skill', 'SKILL.md'), skillMd('linked-folder', MARK));
  writeFileSync(join(base, 'outside-skills', 'y', 'SKILL.md'), skillMd('y', MARK));
  writeFileSync(join(base, 'outside', 'hard.md'), skillMd('hard', MARK));
  writeFileSync(join(ws, 'README.md'), skillMd('readme', MARK));
  reader = new GuardedContentReader({ dataDir: data, home });
  tools = Object.fromEntries(createSkillTools(join(data, 'skills'), reader).map((t) => [t.name, t]));
});

/** Makes `.deskhand/skills/<name>/` and lets `plant` put the spelling in it. */
function skill(name: string, plant: (dir: string) => void): void {
  const dir = join(skills(), name);
  mkdirSync(dir, { recursive: true });
  plant(dir);
}

const run = async (tool: string, args: Record<string, unknown>, cwd = ws) => tools[tool]!.execute(args as never, makeContext(cwd, { dataDir: data }));

// Each spelling: a skill folder name and how its SKILL.md (or the folder) leaves the skill's folder.
const spellings: [what: string, name: string, plant: () => void][] = [
  ['an absolute link to ~/.netrc', 'abs-netrc', () => skill('abs-netrc', (d) => symlinkSync(join(home, '.netrc'), join(d, 'SKILL.md')))],
  ['a relative ../../ link to ~/.netrc', 'rel-netrc', () => skill('rel-netrc', (d) => symlinkSync('../../../../home/.netrc', join(d, 'SKILL.md')))],
  ['a link to shell history', 'history', () => skill('history', (d) => symlinkSync(join(home, '.bash_history'), join(d, 'SKILL.md')))],
  ['a link to an SSH key', 'ssh-key', () => skill('ssh-key', (d) => symlinkSync(join(home, '.ssh', 'id_ed25519'), join(d, 'SKILL.md')))],
  ['a link to /etc/shadow', 'shadow', () => skill('shadow', (d) => symlinkSync('/etc/shadow', join(d, 'SKILL.md')))],
  ['a link to /etc/passwd (not sensitive, but outside)', 'passwd', () => skill('passwd', (d) => symlinkSync('/etc/passwd', join(d, 'SKILL.md')))],
  ['a link through /proc/self/root', 'proc-root', () => skill('proc-root', (d) => symlinkSync(`/proc/self/root${home}/.netrc`, join(d, 'SKILL.md')))],
  ['an absolute link with // and /./ in it', 'odd-spelling', () => skill('odd-spelling', (d) => symlinkSync(`${base}//home/./.netrc`, join(d, 'SKILL.md')))],
  ['a chain of links (inside, then out)', 'chained', () => skill('chained', (d) => {
    symlinkSync('step1', join(d, 'SKILL.md'));
    symlinkSync('./step2', join(d, 'step1'));
    symlinkSync('../../../../home/.netrc', join(d, 'step2'));
  })],
  ['a link to a plain file outside the workspace', 'outside-file', () => skill('outside-file', (d) => symlinkSync(join(base, 'outside', 'notes.md'), join(d, 'SKILL.md')))],
  ['a link to another file of the workspace (outside the skill folder)', 'workspace-file', () => skill('workspace-file', (d) => symlinkSync('../../../README.md', join(d, 'SKILL.md')))],
  ['a link inside the folder to a folder outside', 'inner-folder', () => skill('inner-folder', (d) => {
    symlinkSync(join(base, 'outside-skill'), join(d, 'inner'));
    symlinkSync('inner/SKILL.md', join(d, 'SKILL.md'));
  })],
  ['a hard link to a file outside', 'hard', () => skill('hard', (d) => linkSync(join(base, 'outside', 'hard.md'), join(d, 'SKILL.md')))],
  ['a symlinked skill folder', 'linked-folder', () => symlinkSync(join(base, 'outside-skill'), join(skills(), 'linked-folder'))],
  ['a symlinked skill folder, relative', 'linked-rel', () => symlinkSync('../../../outside-skill', join(skills(), 'linked-rel'))],
];

describe('skills through links (mechanism 3)', () => {
  beforeAll(() => {
    for (const [, , plant] of spellings) plant();
    // Links that stay inside their skill's folder are fine.
    skill('inside-link', (d) => {
      writeFileSync(join(d, 'real.md'), skillMd('inside-link', 'INSIDE-LINK-BODY'));
      symlinkSync('real.md', join(d, 'SKILL.md'));
    });
    skill('plain', (d) => writeFileSync(join(d, 'SKILL.md'), skillMd('plain', 'PLAIN-BODY')));
    // A dangling link and a link loop are not skills, and break nothing.
    skill('dangling', (d) => symlinkSync('nowhere.md', join(d, 'SKILL.md')));
    skill('loop', (d) => {
      symlinkSync('b', join(d, 'SKILL.md'));
      symlinkSync('SKILL.md', join(d, 'b'));
    });
  });

  it.each(spellings)('%s: load_skill refuses it and nothing of the target comes back', async (_what, name) => {
    let message = '';
    await run('load_skill', { name }).then(
      (r) => (message = `LOADED ${r.output}`),
      (err: Error) => (message = err.message),
    );
    expect(message).toMatch(/was not loaded/);
    expect(message).not.toContain(MARK);
    expect(message).not.toMatch(/^LOADED/);
    await expect(run('load_skill_section', { name, section: name })).rejects.toThrow(/was not loaded/);
  });

  it('find_skills lists the good skills, names every refused one with why, and shows no target content', async () => {
    const r = await run('find_skills', {});
    expect(r.output).toContain('plain (workspace): the plain skill');
    expect(r.output).toContain('inside-link (workspace): the inside-link skill');
    expect(r.output).not.toContain(MARK);
    for (const [, name] of spellings) expect(r.output, name).toMatch(new RegExp(`${name} \\(workspace\\): [^;]*(outside|symbolic link|hard links|sensitive|never reads)`));
    expect(r.untrustedSource).toMatch(/^workspace skills /);
  });

  it('a link that stays inside the skill folder loads; the result is untrusted workspace content', async () => {
    const r = await run('load_skill', { name: 'inside-link' });
    expect(r.output).toContain('INSIDE-LINK-BODY');
    expect(r.untrustedSource).toBe(`workspace skill ${join(skills(), 'inside-link', 'SKILL.md')}`);
    const p = await run('load_skill', { name: 'plain' });
    expect(p.output).toContain('PLAIN-BODY');
    expect(p.untrustedSource).toMatch(/^workspace skill /);
  });

  it('dangling links and link loops are no skills, and do not break discovery', async () => {
    await expect(run('load_skill', { name: 'dangling' })).rejects.toThrow(/No skill named "dangling"|was not loaded/);
    await expect(run('load_skill', { name: 'loop' })).rejects.toThrow(/more than 40 symbolic links|was not loaded|No skill named/);
  });

  it('load_skill declares a workspace skill file as a read (judged by the path guard); the person\'s own skills are not workspace reads', async () => {
    mkdirSync(join(data, 'skills', 'mine'), { recursive: true });
    writeFileSync(join(data, 'skills', 'mine', 'SKILL.md'), skillMd('mine', 'MY-OWN-BODY'));
    const ctx = { cwd: ws, workspaceRoots: [ws], dataDir: data };
    expect(await tools.load_skill!.effects!({ name: 'plain' } as never, ctx)).toEqual({ paths: { read: [join(skills(), 'plain', 'SKILL.md')] } });
    expect(await tools.load_skill_section!.effects!({ name: 'plain', section: 'x' } as never, ctx)).toEqual({ paths: { read: [join(skills(), 'plain', 'SKILL.md')] } });
    expect(await tools.load_skill!.effects!({ name: 'mine' } as never, ctx)).toEqual({});
    const mine = await run('load_skill', { name: 'mine' });
    expect(mine.output).toContain('MY-OWN-BODY');
    expect(mine.untrustedSource).toBeUndefined();
  });

  it("a link in the person's own skills folder to a credential is refused too", async () => {
    mkdirSync(join(data, 'skills', 'my-netrc'), { recursive: true });
    symlinkSync(join(home, '.netrc'), join(data, 'skills', 'my-netrc', 'SKILL.md'));
    await expect(run('load_skill', { name: 'my-netrc' })).rejects.toThrow(/was not loaded/);
  });

  it('a linked .deskhand/skills or .deskhand folder is refused whole', async () => {
    const other = tempDir('deskhand-reader-ws2-');
    mkdirSync(join(other, '.deskhand'));
    symlinkSync(join(base, 'outside-skills'), join(other, '.deskhand', 'skills'));
    const third = tempDir('deskhand-reader-ws3-');
    mkdirSync(join(base, 'outside-dot', 'skills', 'y'), { recursive: true });
    writeFileSync(join(base, 'outside-dot', 'skills', 'y', 'SKILL.md'), skillMd('y', MARK));
    symlinkSync(join(base, 'outside-dot'), join(third, '.deskhand'));
    for (const w of [other, third]) {
      await expect(run('load_skill', { name: 'y' }, w)).rejects.toThrow(/No skill named "y"/);
      const found = await run('find_skills', {}, w);
      expect(found.output).toMatch(/symbolic link/);
      expect(found.output).not.toContain(MARK);
    }
  });
});

describe('plan files through links', () => {
  it('a plan file linked to a credential or out of its folder is neither shown to the person nor pinned', async () => {
    const plan = createPlanFamily(reader).tools.find((t) => t.name === 'exit_plan_mode')!;
    const plans = join(ws, '.deskhand', 'plans');
    mkdirSync(plans, { recursive: true });
    symlinkSync(join(home, '.netrc'), join(plans, 'plan-netrc.md'));
    symlinkSync(join(base, 'outside', 'notes.md'), join(plans, 'plan-out.md'));
    for (const name of ['plan-netrc.md', 'plan-out.md']) {
      const planFile = join(plans, name);
      // Nothing to show: the proposal itself fails (the model hears why), and its message holds nothing of the target.
      let refusal = '';
      try {
        plan.input!({ plan_file: planFile } as never);
      } catch (err) {
        refusal = (err as Error).message;
      }
      expect(refusal).toMatch(/The plan file was not read/);
      expect(refusal).not.toContain(MARK);
      const ctx = makeContext(ws, { dataDir: data });
      ctx.state.slots.plan_mode = { planFile, enteredAt: 1 };
      await expect(plan.execute({ plan_file: planFile } as never, { ...ctx, answer: { decision: 'approve' } })).rejects.toThrow(/was not read/);
      expect(JSON.stringify(ctx.state.slots)).not.toContain(MARK);
    }
  });
});

describe('the guarded reader', () => {
  it('refuses sensitive paths even inside the roots, and marks content outside the roots', () => {
    writeFileSync(join(ws, '.env'), `TOKEN=${MARK}\n`);
    expect(() => reader.read(join(ws, '.env'), { roots: [ws] })).toThrow(/never reads those/);
    expect(() => reader.read(join(home, '.netrc'), { roots: [ws] })).toThrow(/never reads those/);
    expect(() => reader.read(join(data, 'deskhand.db'), { roots: [ws] })).toThrow(/Deskhand's own/);
    const out = reader.read(join(base, 'outside', 'notes.md'), { roots: [ws] });
    expect(out.outside).toBe(true);
    const inside = reader.read(join(ws, 'README.md'), { roots: [ws] });
    expect(inside.outside).toBe(false);
    expect(inside.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a FIFO or a device in place of a file is refused without blocking', () => {
    execFileSync('mkfifo', [join(ws, 'pipe.md')]);
    expect(() => reader.read(join(ws, 'pipe.md'), { roots: [ws] })).toThrow(/not a regular file/);
    mkdirSync(join(skills(), 'fifo'), { recursive: true });
    execFileSync('mkfifo', [join(skills(), 'fifo', 'SKILL.md')]);
    symlinkSync('/dev/zero', join(ws, 'zero.md'));
    expect(() => reader.read(join(ws, 'zero.md'), { roots: [ws] })).toThrow(/not a regular file|outside|never reads/);
  });

  it('refuses files over the size cap, folders and missing files with distinct errors', () => {
    writeFileSync(join(ws, 'big.md'), 'x'.repeat(2000));
    expect(() => reader.read(join(ws, 'big.md'), { roots: [ws], maxBytes: 1000 })).toThrow(/2000 bytes; at most 1000/);
    expect(() => reader.read(ws, { roots: [ws] })).toThrow(/not a regular file/);
    expect(() => reader.read(join(ws, 'missing.md'), { roots: [ws] })).toThrow(/no such file/);
  });
});

describe('the content-driven reads go through the guarded reader only', () => {
  it.each(['src/main/tools/extensions/skills.ts', 'src/main/services/mcp/config.ts', 'src/main/services/mcp/manager.ts', 'src/main/tools/plan/index.ts', 'src/main/tools/extensions/mcp-extra.ts'])('%s reads no file by itself', async (file) => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(__dirname, '../..', file), 'utf8');
    expect(text).not.toMatch(/\b(readFileSync|readFile|readdirSync|readdir|createReadStream|openSync|statSync)\b\s*\(|from 'node:fs(\/promises)?'/);
  });
});
