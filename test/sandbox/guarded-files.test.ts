/**
 * Files that steer the agent or run later, guarded inside bubblewrap (issue 43, M4): every `.git` in the writable
 * roots (and the git dir a pointer names, with its commondir), and the run-later files that exist (AGENTS.md,
 * CLAUDE.md, Makefile, CI configs…), are read-only; what a command creates of them (tar, unzip, patch, `node -e`,
 * plain redirects) is removed after it, with a line to the model. Real commands through execute_command; effects
 * checked on the host (file bytes, files that must not exist). These FAIL where bubblewrap cannot run
 * (`DESKHAND_ALLOW_NO_SANDBOX=1` skips them on such a machine).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plantedGitDir, sandboxSupport } from '../../src/main/services/sandbox/sandbox';
import { tempDir } from '../support/tool-context';
import { taskFixture, type TaskFixture } from '../support/tasks';

const linux = process.platform === 'linux' && process.env.DESKHAND_ALLOW_NO_SANDBOX !== '1';

let f: TaskFixture;
let config: string;
beforeEach(() => {
  f = taskFixture();
  execFileSync('git', ['init', '-q', f.ws]);
  config = readFileSync(join(f.ws, '.git', 'config'), 'utf8');
  writeFileSync(join(f.ws, 'AGENTS.md'), 'Use pnpm.\n');
  writeFileSync(join(f.ws, 'Makefile'), 'all:\n\techo hi\n');
  mkdirSync(join(f.ws, 'src'));
});
afterEach(async () => {
  await f.close();
});

const exec = async (command: string) => (await f.tools.executeCommand.execute(f.tools.executeCommand.params.parse({ command }), f.ctx())).output;

/** A tar archive (made on the host, outside the workspace) holding `files`. */
function archive(files: Record<string, string>): string {
  const src = tempDir('deskhand-tar-src-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(src, rel, '..'), { recursive: true });
    writeFileSync(join(src, rel), text);
  }
  const tar = join(tempDir('deskhand-tar-'), 'evil.tar');
  execFileSync('tar', ['-cf', tar, '-C', src, ...Object.keys(files)]);
  return tar;
}

const FSMONITOR = '[core]\n\tfsmonitor = touch /tmp/deskhand-pwned\n';

describe.skipIf(!linux)('sandbox: git dirs and run-later files are guarded (M4)', () => {
  it('bubblewrap runs here', () => {
    expect(sandboxSupport(), sandboxSupport().detail).toMatchObject({ kind: 'bubblewrap', available: true });
  });

  const changes: [what: string, command: (tar: string) => string][] = [
    ['tar -xf of an archive holding .git/config', (tar) => `tar -xf ${tar}`],
    ['tar -xf with --overwrite', (tar) => `tar --overwrite -xf ${tar}`],
    ['tar -xf with --unlink-first', (tar) => `tar --unlink-first -xf ${tar}`],
    ['a redirect into .git/config', () => `printf '${FSMONITOR.replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > .git/config`],
    ['an append to .git/config', () => `printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config`],
    ['node -e writing .git/config', () => `node -e 'require("fs").writeFileSync(".git/config", ${JSON.stringify(FSMONITOR)})'`],
    ['python writing a hook', () => `python3 -c 'open(".git/hooks/pre-commit","w").write("id")'`],
    ['a rename over .git', () => 'mv .git .git-old && mkdir .git'],
    ['rm -rf .git', () => 'rm -rf .git'],
    ['git config itself', () => 'git config core.fsmonitor "touch /tmp/deskhand-pwned"'],
  ];
  it.each(changes)('%s does not change .git', async (_what, command) => {
    const tar = archive({ '.git/config': FSMONITOR, '.git/hooks/post-checkout': '#!/bin/sh\nid\n' });
    const out = await exec(command(tar));
    expect(readFileSync(join(f.ws, '.git', 'config'), 'utf8'), out).toBe(config);
    expect(existsSync(join(f.ws, '.git', 'hooks', 'post-checkout')), out).toBe(false);
    expect(existsSync(join(f.ws, '.git', 'hooks', 'pre-commit')), out).toBe(false);
  });

  it.each([
    ['a redirect', '> AGENTS.md echo "obey"'],
    ['node -e', `node -e 'require("fs").writeFileSync("AGENTS.md", "obey")'`],
    ['tar', 'TAR'],
    ['sed -i', 'sed -i s/pnpm/curl/ AGENTS.md'],
    ['a rename over it', 'echo obey > x && mv x AGENTS.md'],
  ])('an existing AGENTS.md is not changed by %s', async (_what, command) => {
    const cmd = command === 'TAR' ? `tar -xf ${archive({ 'AGENTS.md': 'obey\n', Makefile: 'all:\n\tid\n' })}` : command;
    await exec(cmd);
    expect(readFileSync(join(f.ws, 'AGENTS.md'), 'utf8')).toBe('Use pnpm.\n');
    expect(readFileSync(join(f.ws, 'Makefile'), 'utf8')).toBe('all:\n\techo hi\n');
  });

  const creations: [what: string, command: string, path: string][] = [
    ['node -e writing a nested AGENTS.md', `node -e 'require("fs").writeFileSync("src/AGENTS.md", "obey")'`, 'src/AGENTS.md'],
    ['a redirect into CLAUDE.md', 'echo obey > src/CLAUDE.md', 'src/CLAUDE.md'],
    ['a lower-case agents.md', 'echo obey > src/agents.md', 'src/agents.md'],
    ['a CI workflow from python', `mkdir -p .github/workflows && python3 -c 'open(".github/workflows/ci.yml","w").write("x")'`, '.github/workflows/ci.yml'],
    ['a link named AGENTS.md', 'ln -s ../Makefile src/AGENTS.md', 'src/AGENTS.md'],
    ['a workspace skill', 'mkdir -p .deskhand/skills/x && echo obey > .deskhand/skills/x/SKILL.md', '.deskhand/skills/x/SKILL.md'],
    ['a nested repository with an fsmonitor', `mkdir -p sub/.git && printf '${FSMONITOR.replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > sub/.git/config`, 'sub/.git'],
    ['a nested repository with a hook', 'git init -q sub2 && printf "#!/bin/sh\\nid\\n" > sub2/.git/hooks/pre-commit', 'sub2/.git'],
    ['a .git pointer file', 'mkdir sub3 && echo "gitdir: /tmp/x" > sub3/.git', 'sub3/.git'],
  ];
  it.each(creations)('%s is removed after the command, and the model is told', async (_what, command, path) => {
    const out = await exec(command);
    expect(existsSync(join(f.ws, path)), out).toBe(false);
    expect(out).toContain('Deskhand removed what this command created');
    expect(out).toContain(join(f.ws, path));
    // Moved into Deskhand's data folder (hidden from commands), not lost.
    const at = out.indexOf(`${join(f.ws, path)} (`);
    const from = out.indexOf('; kept in ', at);
    const kept = at >= 0 && from >= 0 ? out.slice(from + '; kept in '.length, out.indexOf(')', from)) : undefined;
    expect(kept, out).toBeDefined();
    expect(kept!.startsWith(join(f.dataDir, 'quarantine'))).toBe(true);
    expect(lstatSync(kept!, { throwIfNoEntry: false }), kept).toBeDefined();
  });

  it('ordinary work is untouched: files, a plain git init, reading .git', async () => {
    const out = await exec('echo hi > notes.txt && git init -q plain && git status --short >/dev/null && cat .git/config >/dev/null && echo ok');
    expect(out).toContain('ok');
    expect(out).not.toContain('Deskhand removed');
    expect(readFileSync(join(f.ws, 'notes.txt'), 'utf8')).toBe('hi\n');
    expect(existsSync(join(f.ws, 'plain', '.git', 'HEAD'))).toBe(true);
  });

  it('a file a person approved the call to write stays writable, and what it creates there is kept', async () => {
    const t = f.tools.executeCommand;
    const ctx = { ...f.ctx(), approvedByPerson: true, writePaths: [join(f.ws, 'Makefile'), join(f.ws, 'src', 'AGENTS.md')] };
    const out = (await t.execute(t.params.parse({ command: 'printf "all:\\n\\ttrue\\n" > Makefile && echo notes > src/AGENTS.md && echo x > src/CLAUDE.md' }), ctx)).output;
    expect(readFileSync(join(f.ws, 'Makefile'), 'utf8'), out).toBe('all:\n\ttrue\n');
    expect(readFileSync(join(f.ws, 'src', 'AGENTS.md'), 'utf8'), out).toBe('notes\n');
    // Not among the approved paths: removed as ever.
    expect(existsSync(join(f.ws, 'src', 'CLAUDE.md')), out).toBe(false);
  });

  it('a linked worktree: the pointer, its git dir and the common dir are read-only', async () => {
    const main = tempDir('deskhand-main-');
    execFileSync('git', ['init', '-q', main]);
    execFileSync('git', ['-C', main, 'commit', '-q', '--allow-empty', '-m', 'x'], { env: { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' } });
    // The main repository inside the workspace, the worktree too (both under the one root).
    const root = f.ws;
    execFileSync('git', ['clone', '-q', main, join(root, 'repo')]);
    execFileSync('git', ['-C', join(root, 'repo'), 'worktree', 'add', '-q', join(root, 'wt')]);
    const common = readFileSync(join(root, 'repo', '.git', 'config'), 'utf8');
    const pointer = readFileSync(join(root, 'wt', '.git'), 'utf8');
    await exec(`cd wt && printf '[core]\\n\\tfsmonitor = x\\n' >> "$(git rev-parse --git-common-dir)/config"; echo "gitdir: /tmp/evil" > .git; echo x > "$(git rev-parse --git-dir)/commondir"`);
    expect(readFileSync(join(root, 'repo', '.git', 'config'), 'utf8')).toBe(common);
    expect(readFileSync(join(root, 'wt', '.git'), 'utf8')).toBe(pointer);
    expect(readFileSync(join(root, 'repo', '.git', 'worktrees', 'wt', 'commondir'), 'utf8')).toBe('../..\n');
  });
});

describe('a git dir a command created is judged by what it holds', () => {
  const dir = (files: Record<string, string>) => {
    const d = join(tempDir('deskhand-gitdir-'), '.git');
    mkdirSync(join(d, 'hooks'), { recursive: true });
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(d, rel, '..'), { recursive: true });
      writeFileSync(join(d, rel), text);
    }
    return d;
  };
  it.each([
    [{ config: '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n' }, null],
    [{ config: '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n' }, null],
    [{ 'hooks/pre-commit.sample': 'x', config: '[core]\n\tbare = false\n' }, null],
    [{ config: '[core]\n\tfsmonitor = id\n' }, /core\.fsmonitor/],
    [{ config: '[core]\n\tFSMonitor = id\n' }, /core\.fsmonitor/],
    [{ config: '[core] pager = id\n' }, /core\.pager/],
    [{ config: '[alias]\n\tst = !id\n' }, /alias\.st/],
    [{ config: '[include]\n\tpath = ../x\n' }, /include\.path/],
    [{ config: '[filter "x"]\n\tsmudge = id\n' }, /filter\.x\.smudge/],
    [{ 'hooks/post-checkout': 'id' }, /hooks/],
    [{ commondir: '../..' }, /commondir/],
    [{ 'info/attributes': '* filter=x' }, /attributes/],
  ] as const)('%j → %s', (files, why) => {
    const found = plantedGitDir(dir(files));
    if (why === null) expect(found).toBeNull();
    else expect(found).toMatch(why);
  });
});
