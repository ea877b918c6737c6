/**
 * Security round two (issue 9), table-driven with many spellings per mechanism, against real files in temp folders:
 * writes disguised as reads (git's real grammar, repositories whose config runs programs), every path-like argument
 * contained (cwd of commands, checks and jobs), sensitive content judged by what a call reaches (a home folder),
 * the shell no looser than the file tools (clobbering redirects, files that run code later), changes outside the
 * workspace roots asking under every policy, and the over-asking list made read-only.
 */
import { decideWithEveryRule } from '../support/rules';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand } from '../../src/main/tools/shell/command-classifier';
import type { ClassifyContext, ToolDefinition } from '../../src/main/runtime/tool';
import { builtinTools } from '../support/tools';
import type { Policy, RiskTier } from '../../src/shared/tools';
import { makeContext, tempDir } from '../support/tool-context';

let ws: string;
let out: string;
let data: string;
let home: string;
let ctx: ClassifyContext & { home: string };

beforeAll(() => {
  const base = tempDir('deskhand-round2-');
  ws = join(base, 'ws');
  out = join(base, 'out');
  data = join(base, 'data');
  home = join(base, 'home');
  for (const d of [ws, out, data, join(home, '.ssh'), join(home, '.aws'), join(home, 'projects'), join(ws, 'src'), join(ws, '.git', 'objects'), join(ws, '.git', 'refs'), join(ws, '.vscode'), join(ws, '.github', 'workflows'), join(ws, '.cargo')]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'key');
  writeFileSync(join(home, '.aws', 'credentials'), '[default]');
  writeFileSync(join(home, '.bash_history'), 'export TOKEN=x\n');
  mkdirSync(join(home, '.config', 'gcloud'), { recursive: true });
  writeFileSync(join(home, '.config', 'gcloud', 'credentials.db'), 'x');
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(ws, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "origin"]\n\turl = https://example.com/x.git\n');
  writeFileSync(join(ws, 'existing.txt'), 'keep me\n');
  writeFileSync(join(ws, 'Makefile'), 'all:\n\techo hi\n');
  writeFileSync(join(ws, 'notes.txt.gz'), '');
  writeFileSync(join(ws, '.env'), 'TOKEN=x\n');
  mkdirSync(join(ws, 'config', 'prod'), { recursive: true });
  writeFileSync(join(ws, 'config', 'prod', '.env.production'), 'TOKEN=y\n');
  writeFileSync(join(ws, 'config', 'prod', 'app.json'), '{}\n');

  // Repositories whose config makes git run programs, in every shape git accepts.
  const evil = (dir: string, config: string) => {
    mkdirSync(join(dir, 'objects'), { recursive: true });
    mkdirSync(join(dir, 'refs'), { recursive: true });
    writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(dir, 'config'), config);
  };
  evil(join(ws, 'fsmon', '.git'), '[core]\n\tfsmonitor = ./run-me.sh\n');
  evil(join(ws, 'pager', '.git'), '[core]\n  pager = sh -c id\n');
  evil(join(ws, 'textconv', '.git'), '[diff "x"]\n\ttextconv = ./conv\n');
  evil(join(ws, 'filter', '.git'), '[filter "lfs"]\n\tsmudge = ./smudge %f\n');
  evil(join(ws, 'alias', '.git'), '[alias]\n\tst = !id\n');
  evil(join(ws, 'include', '.git'), '[include]\n\tpath = ../other.cfg\n');
  evil(join(ws, 'hookspath', '.git'), '[core]\n\thooksPath = ./hooks\n');
  evil(join(ws, 'sshcmd', '.git'), '[core] sshCommand = ./ssh-wrapper\n');
  evil(join(ws, 'bare-evil'), '[core]\n\tbare = true\n\tfsmonitor = ./x\n');
  // A linked worktree: `.git` is a file pointing to its git dir, whose commondir holds the config.
  evil(join(ws, 'main-repo', '.git'), '[core]\n\tfsmonitor = ./x\n');
  mkdirSync(join(ws, 'main-repo', '.git', 'worktrees', 'wt'), { recursive: true });
  writeFileSync(join(ws, 'main-repo', '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
  writeFileSync(join(ws, 'main-repo', '.git', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/wt\n');
  mkdirSync(join(ws, 'linked'));
  writeFileSync(join(ws, 'linked', '.git'), `gitdir: ${join(ws, 'main-repo', '.git', 'worktrees', 'wt')}\n`);
  mkdirSync(join(ws, 'fsmon', 'deep', 'er'), { recursive: true });

  ctx = { cwd: ws, workspaceRoots: [ws], dataDir: data, home };
});

type Row = readonly [command: string, risk: RiskTier, asks: boolean];
const R: RiskTier = 'read-only';
const L: RiskTier = 'low-risk';
const H: RiskTier = 'high-risk';

const classifierFamilies: Record<string, Row[]> = {
  'git config follows the real grammar: a key with a value writes': [
    ['git config core.fsmonitor ./evil.sh', H, true],
    ['git config core.fsmonitor get', H, true],
    ['git config core.fsmonitor list', H, true],
    ['git config --local core.hooksPath .hooks', H, true],
    ['git config core.sshCommand "ssh -o ProxyCommand=id"', H, true],
    ['git config core.pager less', H, true],
    ['git config pager.log "sh -c id"', H, true],
    ['git config core.editor vim', H, true],
    ["git config alias.st '!id'", H, true],
    ['git config include.path ../x.cfg', H, true],
    ['git config includeIf.gitdir:~/.path ../x.cfg', H, true],
    ['git config diff.pdf.textconv ./conv', H, true],
    ['git config filter.lfs.smudge ./x', H, true],
    ['git config set core.fsmonitor ./x', H, true],
    ['git config set --local core.fsmonitor ./x', H, true],
    ['git config --add core.fsmonitor ./x', H, true],
    ['git config --replace-all core.pager x', H, true],
    ['git config --get core.fsmonitor ./evil', R, false],
    ['git config --global user.name me', H, true],
    ['git config user.name me', H, false],
    ['git config --unset user.name', H, true],
    ['git config --edit', H, true],
    ['git -C sub config core.fsmonitor x', H, true],
    ['git config --file other.cfg core.fsmonitor x', H, true],
    ['git config --get user.name', R, false],
    ['git config user.name', R, false],
    ['git config get user.name', R, false],
    ['git config list', R, false],
    ['git config --list', R, false],
    ['git config -l', R, false],
    ['git config --get-regexp ^remote', R, false],
    ['git config --show-origin --list', R, false],
    ['git config --list core.fsmonitor x', H, true],
    ['git config -l core.pager', H, true],
  ],
  'a repository whose config names programs asks, however git finds it': [
    ['git status', R, false],
    ['git log --oneline', R, false],
    ['git -C fsmon status', R, true],
    ['git -C fsmon/deep/er status', R, true],
    ['git -C fsmon -C deep status', R, true],
    ['git -C pager log', R, true],
    ['git -C textconv diff', R, true],
    ['git -C filter status', R, true],
    ['git -C alias status', R, true],
    ['git -C include status', R, true],
    ['git -C hookspath status', R, true],
    ['git -C sshcmd status', R, true],
    ['git --git-dir=fsmon/.git log', R, true],
    ['git --git-dir fsmon/.git --work-tree fsmon status', R, true],
    ['git -C bare-evil log', R, true],
    ['git --git-dir=bare-evil log', R, true],
    ['git -C linked status', R, true],
    ['cd fsmon && git status', H, false],
    ['GIT_DIR=fsmon/.git git status', H, false],
    ['git --exec-path=/tmp/x status', H, false],
  ],
  'a redirect that clobbers or changes an existing file is as risky as write_file': [
    ['echo x > new-file.txt', L, false],
    ['echo x > existing.txt', H, false],
    ['echo x >> existing.txt', H, false],
    ['echo x >| existing.txt', H, false],
    ['echo x &> existing.txt', H, false],
    ['echo x &>> existing.txt', H, false],
    ['echo x 1> existing.txt', H, false],
    ['echo x 2> existing.txt', H, false],
    ['cat < existing.txt > existing.txt', H, false],
    ["sh -c 'echo x > existing.txt'", H, false],
    ['ls 2>/dev/null', R, false],
  ],
  'creating or changing files that run code later asks, through any command': [
    ['echo "all:; id" > Makefile', H, true],
    ['echo x > src/Makefile', H, true],
    ['echo x > GNUmakefile', H, true],
    ['echo x > rules.mk', H, true],
    ["echo '{}' > .vscode/tasks.json", H, true],
    ["echo '{}' > .vscode/settings.json", H, true],
    ['echo x > .github/workflows/ci.yml', H, true],
    ['echo x > .gitlab-ci.yml', H, true],
    ['echo x > .circleci/config.yml', H, true],
    ['echo x > Jenkinsfile', H, true],
    ['echo "[build]" > .cargo/config.toml', H, true],
    ['echo "[build]" > .cargo/config', H, true],
    ["echo 'import os' > lib/python3/site-packages/evil.pth", H, true],
    ['echo x > sitecustomize.py', H, true],
    ['echo x > .npmrc', H, true],
    ['echo x > .yarnrc.yml', H, true],
    ['echo x > .pnpmfile.cjs', H, true],
    ['echo x > .pre-commit-config.yaml', H, true],
    ['echo x > .husky/pre-commit', H, true],
    ['echo x > .git/hooks/post-checkout', H, true],
    ['echo "[core] fsmonitor = id" > bare-evil/config', H, true],
    ['echo id > alias/.git/hooks/pre-commit', H, true],
    ['echo "* filter=x" > .gitattributes', H, true],
    ['tee Makefile < /dev/null', H, true],
    ['cp evil.mk Makefile', H, true],
    ['mv x .github/workflows/deploy.yml', H, true],
    ['sed -i s/a/b/ .cargo/config.toml', H, true],
    ['touch .vscode/launch.json', H, true],
    ['ln -s /tmp/x Makefile', H, true],
    ['cat Makefile', R, false],
    ['grep all Makefile', R, false],
    ['cat .github/workflows/ci.yml', R, false],
  ],
  'a folder that holds credentials (a home folder) asks when reached': [
    ['ls ~', R, true],
    ['ls -la ~/', R, true],
    ['grep -r password ~', R, true],
    ['find ~ -name "*.pem"', H, true],
    ['du -sh ~', R, true],
    ['tar czf home.tgz ~', H, true],
    ['cp -r ~ backup', H, true],
    ['cp -r ~/ backup', H, true],
    ['rsync -a ~/ backup/', H, true],
    ['zip -r home.zip ~', H, true],
    ['ls ~/projects', R, false],
    // (A private key itself is refused under every policy: the denylist, test/security/command-denylist.test.ts.)
    ['cat ~/.ssh/config', R, true],
    ['cat ~/.aws/credentials', R, true],
  ],
  'the over-asking list is read-only': [
    [':', R, false],
    ["awk '{print $1}' file.txt", R, false],
    ["awk -F: '{print $1}' /etc/passwd", R, false],
    ["awk -v x=1 'NR > 2 && $1 || x {print NR, $0}' file", R, false],
    ["awk '/a|b/ {n++} END {print n}' file", R, false],
    ["gawk 'BEGIN {printf \"%d\\n\", 3}'", R, false],
    ['base64 file.bin', R, false],
    ['base64 -d encoded.txt', R, false],
    ['zcat notes.txt.gz', R, false],
    ['xxd file.bin', R, false],
    ['xxd -l 64 file.bin', R, false],
    ['npm ls', R, false],
    ['npm ls --depth=0', R, false],
    ['npm list react', R, false],
    ['tsc --noEmit', R, false],
    ['tsc --noEmit -p tsconfig.json', R, false],
    ['lsof -i', R, false],
    ['lsof -p 1', R, false],
    ['less -F README.md', R, false],
    ['less -FRX README.md', R, false],
    ['man ls', R, false],
    ['man 5 crontab', R, false],
    ['man -k socket', R, false],
  ],
  'awk that runs, pipes or writes stays high-risk': [
    ["awk 'BEGIN {system(\"id\")}'", H, false],
    ["awk '{print | \"sh\"}' file", H, false],
    ["awk '{print > \"out.txt\"}' file", H, false],
    ["awk '{print $1 > 5}' file", H, false],
    ["awk '{printf \"%s\", $0 >> \"f\"}' file", H, false],
    ["awk 'BEGIN {\"id\" | getline x; print x}'", H, false],
    ["awk 'BEGIN {print |& \"cat\"}'", H, false],
    ['awk -f prog.awk file', H, false],
    ["gawk -l ./ext.so 'BEGIN{}'", H, false],
    ["gawk '@load \"filefuncs\"; BEGIN{}'", H, false],
    ["gawk -o out.txt '{print}'", H, false],
    ["awk -e 'BEGIN{system(\"id\")}'", H, false],
    ['awk "$PROG" file', H, false],
    ['xxd file.bin out.hex', H, false],
    ['xxd -r hex.txt file.bin', H, false],
    ['npm ls --script-shell=./x', H, false],
    ['tsc', H, false],
    ['tsc --noEmit --watch', H, false],
    ['tsc --noEmit --generateTrace t', H, false],
    ['less -o log.txt README.md', H, false],
    ['less +!id README.md', H, false],
    ['man -P "sh -c id" ls', H, false],
    ['man -H ls', H, false],
    ['man ./evil.1', H, false],
    ['man -l evil.1', H, false],
  ],
};

const classifierRows = Object.entries(classifierFamilies).flatMap(([family, rows]) => rows.map((r) => [family, ...r] as const));

describe('round two: the classifier', () => {
  it('has many spellings per mechanism', () => {
    for (const [family, rows] of Object.entries(classifierFamilies)) expect(rows.length, family).toBeGreaterThanOrEqual(10);
  });

  it.each(classifierRows)('%s: %j → %s (asks under every policy: %s)', (_family, command, risk, asks) => {
    const c = classifyCommand(command, ctx);
    const why = `reasons: ${c.reasons.join(' | ')} / always: ${c.alwaysAsk ?? '-'}`;
    expect(c.risk, why).toBe(risk);
    expect(!!c.alwaysAsk, why).toBe(asks);
    if (asks) expect(c.rulePattern).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The approval engine over the real tools

const tool = (name: string): ToolDefinition => {
  const t = builtinTools({ dataDir: ctx.dataDir }).find((x) => x.name === name);
  if (!t) throw new Error(name);
  return t;
};
type DecisionRow = readonly [tool: string, args: Record<string, unknown>, policy: Policy, decision: 'allow' | 'ask'];
const fill = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll('{ws}', ws).replaceAll('{out}', out).replaceAll('{home}', home));

const decisionFamilies: Record<string, DecisionRow[]> = {
  'changes outside the workspace roots ask under every policy': [
    ['write_file', { path: '{out}/new.txt', content: 'x' }, 'high-risk', 'ask'],
    ['write_file', { path: '../out/new.txt', content: 'x' }, 'high-risk', 'ask'],
    ['edit_file', { path: '{out}/x.txt', old_string: 'a', new_string: 'b' }, 'high-risk', 'ask'],
    ['mkdir', { path: '{out}/dir' }, 'high-risk', 'ask'],
    ['rm', { path: '{out}/x.txt' }, 'high-risk', 'ask'],
    ['cp', { source: 'existing.txt', destination: '{out}/copy.txt' }, 'high-risk', 'ask'],
    ['mv', { source: 'existing.txt', destination: '{out}/moved.txt' }, 'high-risk', 'ask'],
    ['mv', { source: '{out}/x.txt', destination: 'here.txt' }, 'high-risk', 'ask'],
    ['write_file', { path: '/etc/deskhand-probe', content: 'x' }, 'high-risk', 'ask'],
    ['write_file', { path: 'inside.txt', content: 'x' }, 'high-risk', 'allow'],
    ['mkdir', { path: 'inside-dir' }, 'low-risk', 'allow'],
    ['cp', { source: 'existing.txt', destination: 'copy.txt' }, 'low-risk', 'allow'],
  ],
  'files that run code later ask under every policy, through every file tool': [
    ['write_file', { path: 'Makefile', content: 'all:\n\tid\n' }, 'high-risk', 'ask'],
    ['write_file', { path: 'src/Makefile', content: 'x' }, 'high-risk', 'ask'],
    ['edit_file', { path: 'Makefile', old_string: 'echo', new_string: 'id' }, 'high-risk', 'ask'],
    ['write_file', { path: '.vscode/tasks.json', content: '{}' }, 'high-risk', 'ask'],
    ['write_file', { path: '.github/workflows/ci.yml', content: 'x' }, 'high-risk', 'ask'],
    ['write_file', { path: '.cargo/config.toml', content: 'x' }, 'high-risk', 'ask'],
    ['write_file', { path: 'venv/lib/python3.11/site-packages/x.pth', content: 'import os' }, 'high-risk', 'ask'],
    ['write_file', { path: '.pnpmfile.cjs', content: 'x' }, 'high-risk', 'ask'],
    ['cp', { source: 'existing.txt', destination: '.gitlab-ci.yml' }, 'high-risk', 'ask'],
    ['mv', { source: 'existing.txt', destination: '.husky/pre-push' }, 'high-risk', 'ask'],
    ['mkdir', { path: '.git/hooks' }, 'high-risk', 'ask'],
    ['write_file', { path: 'bare-evil/config', content: '[core]\n\tfsmonitor = id\n' }, 'high-risk', 'ask'],
    ['write_file', { path: 'bare-evil/hooks/post-checkout', content: 'id' }, 'high-risk', 'ask'],
    ['write_file', { path: 'src/hooks/useThing.ts', content: 'export {}' }, 'high-risk', 'allow'],
    ['write_file', { path: 'src/config', content: 'x' }, 'high-risk', 'allow'],
    ['read_file', { path: 'Makefile' }, 'read-only', 'allow'],
  ],
  'reaching a folder that holds credentials asks under every policy': [
    ['ls', { path: '{home}' }, 'high-risk', 'ask'],
    ['grep', { pattern: 'password', path: '{home}' }, 'high-risk', 'ask'],
    ['find', { pattern: '**/*', path: '{home}' }, 'high-risk', 'ask'],
    ['cp', { source: '{home}', destination: 'home-copy' }, 'high-risk', 'ask'],
    ['mv', { source: '{home}', destination: 'home-copy' }, 'high-risk', 'ask'],
    ['stat', { path: '{home}' }, 'high-risk', 'ask'],
    ['read_file', { path: '{home}/.ssh/id_rsa' }, 'high-risk', 'ask'],
    ['read_file', { path: '.env' }, 'high-risk', 'ask'],
    ['read_file', { path: 'config/prod/.env.production' }, 'high-risk', 'ask'],
    ['read_file', { path: 'backup/.ssh/id_rsa' }, 'high-risk', 'ask'],
    ['ls', { path: '{home}/projects' }, 'low-risk', 'allow'],
  ],
  'every working folder of a command is contained': [
    ['execute_command', { command: 'ls', cwd: '{out}' }, 'high-risk', 'ask'],
    ['execute_command', { command: 'ls', cwd: '..' }, 'high-risk', 'ask'],
    ['execute_command', { command: 'ls', cwd: '{home}' }, 'high-risk', 'ask'],
    ['execute_command', { command: 'ls', cwd: '{home}/.ssh' }, 'high-risk', 'ask'],
    ['execute_command', { command: 'ls', cwd: '/' }, 'high-risk', 'ask'],
    ['execute_command', { command: 'ls', cwd: 'src' }, 'read-only', 'allow'],
    ['execute_command', { command: 'ls' }, 'read-only', 'allow'],
    ['wait_for', { command: 'test -f x', cwd: '{out}' }, 'high-risk', 'ask'],
    ['wait_for', { command: 'test -f x', cwd: '/tmp' }, 'high-risk', 'ask'],
    ['wait_for', { command: 'test -f x', cwd: 'src' }, 'read-only', 'allow'],
    ['run_background_jobs', { jobs: [{ command: 'ls' }, { command: 'ls', cwd: '{out}' }] }, 'high-risk', 'ask'],
    ['run_background_jobs', { jobs: [{ command: 'ls', cwd: '{home}' }] }, 'high-risk', 'ask'],
    ['run_background_jobs', { jobs: [{ command: 'ls', cwd: 'src' }] }, 'read-only', 'allow'],
  ],
};
const decisionRows = Object.entries(decisionFamilies).flatMap(([family, rows]) => rows.map((r) => [family, ...r] as const));

describe('round two: the approval engine over the real tools', () => {
  it.each(decisionRows)('%s: %s %j under %s → %s', async (_family, name, rawArgs, policy, expected) => {
    const t = tool(name);
    const args = t.params.parse(fill(rawArgs));
    const d = await decideWithEveryRule({ tool: t, args, policy, tainted: false, ctx });
    expect(d.decision, d.reasons.join(' | ')).toBe(expected);
    if (expected === 'ask' && policy === 'high-risk') expect(d.rulePattern, 'no always-allow rule covers it').toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Files keep their sensitivity: cp and mv refuse to land a credentials file where it would no longer be protected.

describe('round two: copies keep sensitivity (cp and mv refuse otherwise)', () => {
  const run = async (name: 'cp' | 'mv', args: Record<string, unknown>) => {
    const t = tool(name);
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      return await t.execute(t.params.parse(fill(args)), makeContext(ws, { dataDir: data }));
    } finally {
      process.env.HOME = saved;
    }
  };
  const refused: [string, 'cp' | 'mv', Record<string, unknown>, string][] = [
    ['an SSH key renamed into the workspace', 'cp', { source: '{home}/.ssh/id_rsa', destination: 'notes.txt' }, 'notes.txt'],
    ['the SSH folder copied under another name', 'cp', { source: '{home}/.ssh', destination: 'ssh-copy' }, 'ssh-copy'],
    ['the whole home folder', 'cp', { source: '{home}', destination: 'home-copy' }, 'home-copy'],
    ['cloud credentials moved in', 'mv', { source: '{home}/.aws/credentials', destination: 'aws.txt' }, 'aws.txt'],
    ['a workspace .env renamed', 'cp', { source: '.env', destination: 'env.txt' }, 'env.txt'],
    ['a folder holding cloud credentials', 'cp', { source: '{home}/.config', destination: 'config-copy-{n}' }, 'config-copy-{n}'],
  ];
  let n = 0;
  it.each(refused)('refuses %s', async (_what, name, args, lands) => {
    const i = ++n;
    const a = JSON.parse(JSON.stringify(args).replaceAll('{n}', String(i))) as Record<string, unknown>;
    await expect(run(name, a)).rejects.toThrow(/Refusing to (copy|move) .*no longer be protected/);
    expect(existsSync(join(ws, lands.replaceAll('{n}', String(i))))).toBe(false);
  });
  it('copies a sensitive file to a path that stays sensitive (the copy still asks), and ordinary folders', async () => {
    await run('cp', { source: '.env', destination: '.env.bak' });
    expect(readFileSync(join(ws, '.env.bak'), 'utf8')).toBe('TOKEN=x\n');
    await run('cp', { source: 'src', destination: 'src-copy' });
    // A nested .env keeps its name in a folder copy, so it stays protected (and the sandbox hides it there too).
    await run('cp', { source: 'config', destination: 'config-copy' });
    expect(existsSync(join(ws, 'config-copy', 'prod', '.env.production'))).toBe(true);
    expect(existsSync(join(ws, 'src-copy'))).toBe(true);
    expect(existsSync(join(home, '.aws', 'credentials'))).toBe(true);
  });
});
