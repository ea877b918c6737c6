/**
 * git: global options (where it finds its repository), the repository's own config (settings that make git run
 * programs make every git command ask), read-only subcommands by their flags, and `git config` by its grammar.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, sep } from 'node:path';
import { gitConfigSettings } from '../../../../shared/git-config';
import { looksLikeGitDir } from '../../../runtime/decision/path-guard';
import type { ProgramContext } from './context';
import { findLong, findShort, scanOptions } from './options';
import { highRisk, readOnly, type Verdict } from './verdict';

export function gitVerdict(ctx: ProgramContext, args: readonly string[] | null): Verdict {
  if (!args) return highRisk('git', 'has arguments that are not plain literals; the classifier checks git options and cannot see through them');
  let i = 0;
  // Where git will look for its repository: -C folders (relative to each other), --git-dir, --work-tree.
  let dir: string | null = null;
  let gitDir: string | null = null;
  const at = (p: string) => (dir ? joinRelative(dir, p) : p);
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) break;
    if (['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--bare', '--no-advice'].includes(a)) continue;
    if (a === '-C') {
      const d = args[++i];
      if (d === undefined) return highRisk('git', '-C needs a folder');
      if (d !== '') dir = at(d);
      continue;
    }
    const value = /^--(git-dir|work-tree|namespace)(?:=(.*))?$/.exec(a);
    if (value) {
      const v = value[2] ?? args[++i];
      if (v === undefined) return highRisk('git', `${a} needs a value`);
      if (value[1] === 'git-dir') gitDir = at(v);
      if (value[1] === 'work-tree') ctx.a.noteSensitivePath(at(v), 'read');
      continue;
    }
    if ((a === '--version' || a === '-v') && args.length === 1) return readOnly('git', 'prints its version');
    if (a === '-c' || a.startsWith('--config-env') || a.startsWith('-c')) return highRisk('git', '-c/--config-env can set any configuration, including programs git runs');
    if (a === '-p' || a === '--paginate') return highRisk('git', 'starts a pager, which can run commands');
    if (a.startsWith('--exec-path')) return highRisk('git', '--exec-path changes where git finds the programs it runs');
    return highRisk('git', `global option ${a} is not known to be safe`);
  }
  if (ctx.a.cwdChanges && !gitDir && (dir === null || !isAbsolute(dir))) {
    return highRisk('git', 'runs after changing directory, so the repository (and the programs its config names) cannot be checked');
  }
  // A repository whose config names programs makes even `git status` run them: such a repository always asks.
  const repo = ctx.a.gitRepository(dir, gitDir);
  if (repo.dangerous.length) {
    ctx.a.ask(`git would run programs this repository's config names (${repo.dangerous.slice(0, 4).join(', ')} in ${repo.configs.join(', ')})`);
  }
  if (gitDir) ctx.a.noteSensitivePath(gitDir, 'read');
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return readOnly('git', 'prints usage');
  if (rest.includes('--help')) return highRisk('git', '--help opens the manual through man, a pager or a browser');
  // `git remote` alone, `-v` and `get-url` only print the configured remotes; the other forms talk to them.
  if (sub === 'remote' && (rest.every((a) => a === '-v' || a === '--verbose') || (rest[0] === 'get-url' && rest.length <= 3))) {
    return readOnly('git', 'git remote lists the configured remotes');
  }
  const network = ['fetch', 'pull', 'push', 'clone', 'ls-remote', 'submodule', 'remote', 'send-email', 'request-pull', 'archive', 'svn', 'p4', 'lfs'];
  if (network.includes(sub)) return highRisk('git', `network: git ${sub} talks to remotes`, true);
  // Read-only history and object queries: safe unless a flag writes a file or runs configured programs.
  const inspect = (what: string): Verdict => {
    const long = findLong(scanOptions(rest), ['output', 'ext-diff', 'textconv', 'filters', 'open-files-in-pager']);
    if (long) return highRisk('git', `${long} writes a file or runs configured programs`);
    if (rest.some((a) => a.startsWith('-O'))) return highRisk('git', '-O reads an order file; not allowed');
    return readOnly('git', what);
  };
  switch (sub) {
    case 'version':
      return readOnly('git', 'prints its version');
    case 'status':
    case 'rev-parse':
    case 'ls-files':
      return readOnly('git', `git ${sub} is read-only`);
    case 'log':
    case 'show':
    case 'diff':
    case 'blame': {
      const scan = scanOptions(rest);
      const long = findLong(scan, ['output', 'ext-diff', 'textconv']);
      if (long) return highRisk('git', `${long} writes a file or runs configured programs`);
      if (rest.some((a) => a.startsWith('-O'))) return highRisk('git', '-O reads an order file; not allowed');
      return readOnly('git', `git ${sub} is read-only`);
    }
    case 'grep': {
      const scan = scanOptions(rest, { short: 'efABCm', optionalShort: 'O', long: ['max-depth', 'threads'] });
      const bad = findShort(scan, 'O') ?? findLong(scan, ['open-files-in-pager', 'ext-grep']);
      return bad ? highRisk('git', `${bad} opens files in a pager, which can run commands`) : readOnly('git', 'git grep is read-only');
    }
    case 'cat-file':
    case 'rev-list':
    case 'ls-tree':
    case 'merge-base':
    case 'name-rev':
    case 'for-each-ref':
    case 'show-ref':
    case 'check-ignore':
    case 'count-objects':
    case 'diff-tree':
    case 'describe':
    case 'shortlog':
    case 'whatchanged':
      return inspect(`git ${sub} is read-only`);
    case 'reflog':
      return rest[0] === undefined || rest[0] === 'show' || rest[0].startsWith('-') ? inspect('git reflog lists the reflog') : highRisk('git', `git reflog ${rest[0]} changes the reflog`);
    case 'stash':
      return rest[0] === 'list' || rest[0] === 'show' ? inspect(`git stash ${rest[0]} is read-only`) : highRisk('git', 'git stash changes the working tree and the stash');
    case 'tag': {
      const listing = rest.some((a) => a === '-l' || a === '--list') || rest.length === 0;
      const ok = rest.every((a, j) => /^(-l|--list|-n\d*|--sort=.*|--format=.*|--column|--no-column|--color|--points-at|--contains|--no-contains|--merged|--no-merged)$/.test(a) || (listing && !a.startsWith('-')) || /^--(points-at|contains|no-contains|merged|no-merged)$/.test(rest[j - 1] ?? ''));
      return listing && ok ? readOnly('git', 'git tag lists tags') : highRisk('git', 'git tag creates or deletes tags');
    }
    case 'config':
      return gitConfig(ctx, rest, dir);
    case 'branch': {
      const listing = ['-a', '-r', '-v', '-vv', '-l', '--list', '--all', '--remotes', '--verbose', '--show-current', '--no-color', '--color', '--merged', '--no-merged', '--contains', '--no-contains', '--points-at', '--no-column', '--column'];
      const hasList = rest.some((a) => a === '-l' || a === '--list');
      for (let j = 0; j < rest.length; j++) {
        const a = rest[j]!;
        if (listing.includes(a)) {
          if (['--merged', '--no-merged', '--contains', '--no-contains', '--points-at'].includes(a)) j++;
          continue;
        }
        if (/^--(sort|format|merged|no-merged|contains|no-contains|points-at|color|column)=/.test(a)) continue;
        if (!a.startsWith('-') && hasList) continue;
        return highRisk('git', `git branch ${a} creates, renames or deletes branches`);
      }
      return readOnly('git', 'git branch lists branches');
    }
    default:
      return highRisk('git', `git ${sub} is not a known read-only git command`);
  }
}

/**
 * `git config` by its real grammar: the subcommand forms (`get`, `list`, `set`…) and the legacy forms, where one
 * name reads and a name with a value writes. Writes are high-risk; writing a setting that makes git run a program
 * later, or writing outside this repository's own config, asks under every policy.
 */
function gitConfig(ctx: ProgramContext, rest: readonly string[], dir: string | null): Verdict {
  // The legacy form parses options only up to the first operand (git's PARSE_OPT_STOP_AT_NON_OPTION): in
  // `git config core.fsmonitor CMD --get` the `--get` is a value pattern and git writes the key. The subcommand form
  // (`git config get …`, git 2.46+) takes options anywhere after its subcommand.
  const subForm = CONFIG_SUBCOMMANDS.includes(rest[0] ?? '');
  const scan = scanOptions(rest, { short: 'f', long: ['file', 'blob', 'type', 'default', 'comment', 'value', 'url'], stopAtOperand: !subForm });
  const file = scan.options.find((o) => o.name === 'f' || (o.long && o.name !== '' && 'file'.startsWith(o.name) && o.name.length > 1));
  const scope = scan.options.find((o) => o.long && ['global', 'system', 'worktree', 'local'].includes(o.name));
  const READ_ACTIONS = ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'list', 'l', 'show-origin', 'show-scope', 'name-only', 'null', 'z', 'includes', 'no-includes', 'type', 'bool', 'int', 'bool-or-int', 'path', 'expiry-date', 'default', 'file', 'f', 'blob', 'global', 'system', 'local', 'worktree', 'fixed-value', 'all', 'regexp', 'value', 'url', 'show-names', 'no-show-names', 'no-type'];
  const actions = scan.options.filter((o) => !READ_ACTIONS.includes(o.name));
  const ops = scan.operands;
  const sub = subForm ? ops[0]! : null;
  let reads = false;
  if (actions.length) reads = false;
  else if (sub === 'list') reads = ops.length === 1;
  else if (sub === 'get') reads = ops.length === 2;
  else if (sub) reads = false;
  else {
    const listing = scan.options.some((o) => o.name === 'list' || o.name === 'l');
    const getting = scan.options.filter((o) => ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool'].includes(o.name));
    if (listing && getting.length === 0) reads = ops.length === 0;
    else if (getting.length === 1 && !listing) reads = ops.length >= 1 && ops.length <= 2 && (getting[0]!.name !== 'get-urlmatch' || ops.length === 2);
    else if (getting.length === 0 && !listing) reads = ops.length === 1;
  }
  if (reads) return readOnly('git', 'git config reads configuration');
  // A subcommand word after options (`git config --local set core.fsmonitor CMD`) is the legacy form to git 2.39
  // and a subcommand to a newer git: the key may be either operand.
  const key = sub ? ops[1] : CONFIG_SUBCOMMANDS.includes(ops[0] ?? '') && ops[1] && DANGEROUS_GIT_KEY.test(ops[1]) ? ops[1] : ops[0];
  if (file?.value) ctx.a.noteSensitivePath(dir ? joinRelative(dir, file.value) : file.value, 'write');
  if (key && DANGEROUS_GIT_KEY.test(key)) ctx.a.ask(`git config writes ${key}, a setting that makes git run a program later`);
  else if (!key || actions.length) ctx.a.ask('git config changes configuration in a way the classifier cannot read (it may name programs git runs)');
  if (scope && scope.name !== 'local' && scope.name !== 'worktree') ctx.a.ask(`git config --${scope.name} changes configuration outside this repository`);
  return highRisk('git', `git config ${key ? `writes ${key}` : 'changes configuration'}; configuration can name programs git runs`);
}

/** The subcommand form of `git config` (git 2.46+): the first argument names what it does. */
const CONFIG_SUBCOMMANDS = ['get', 'list', 'set', 'unset', 'rename-section', 'remove-section', 'edit'];

/** Settings that make git run a program (now or later), or load other configuration that could. */
export const DANGEROUS_GIT_KEY =
  /^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|pager\..+|alias\..+|include\.path|includeif\..+|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|mergetool\..+\.cmd|difftool\..+\.cmd|credential\.helper|credential\..+\.helper|gpg\.program|gpg\..+\.program|interactive\.difffilter|remote\..+\.(uploadpack|receivepack|vcs)|uploadpack\.packobjectshook|protocol\..+\.allow|protocol\.allow|submodule\..+\.update|man\..+\.cmd|browser\..+\.cmd|web\.browser|sendemail\..+|core\.attributesfile|ssh\.variant)$/i;

/** `section.subsection.key` names set in a git config text (lower-case section and key; subsections kept). */
export function gitConfigKeys(text: string): string[] {
  return gitConfigSettings(text).flatMap((s) => (s.name ? [s.name] : []));
}

/** The git dir git would use from `start`: upwards, `.git` (folder, or file with `gitdir:`), or a bare git dir. */
export function findGitDir(start: string): string | null {
  let d = start;
  for (let hops = 0; hops < 64; hops++) {
    const dotGit = `${d === sep ? '' : d}${sep}.git`;
    try {
      const st = statSync(dotGit);
      if (st.isDirectory()) return dotGit;
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
      if (m) return isAbsolute(m[1]!.trim()) ? m[1]!.trim() : `${d}${sep}${m[1]!.trim()}`;
    } catch {
      // no .git here
    }
    if (looksLikeGitDir(d)) return d;
    const parent = dirname(d);
    if (parent === d) return null;
    d = parent;
  }
  return null;
}

/** `p` relative to `dir` (as `git -C dir` and `-C a -C b` resolve), unless it is absolute or starts with ~. */
function joinRelative(dir: string, p: string): string {
  return isAbsolute(p) || p === '~' || p.startsWith('~/') ? p : `${dir}/${p}`;
}
