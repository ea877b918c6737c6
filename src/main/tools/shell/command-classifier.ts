/**
 * Shell command classification for `execute_command`: parses the command with a real bash parser (mvdan/sh) and
 * classifies every command it would run — list members, pipeline stages, subshells, `$(…)`/backticks, process
 * substitutions, heredoc bodies, redirections, `sh -c` strings — and the riskiest one wins.
 *
 * The rule is "prove it or ask": `read-only` only for allowlisted programs whose arguments were checked, `low-risk`
 * only for mkdir/touch/tee/redirections that provably land inside the workspace, and `high-risk` for everything else,
 * including anything the parser rejects, syntax this file does not know, and commands over the complexity limits.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, sep } from 'node:path';
import { maxRisk, type RiskTier } from '../../../shared/tools';
import { PathGuard, SENSITIVE_LABEL, looksLikeGitDir, type PathCheck } from '../../runtime/path-guard';
import type { Classification, ClassifyContext } from '../../runtime/tool';
import { CREDENTIAL_ENV_NAME, SecretRedactor } from '../../runtime/redaction';

// ---------------------------------------------------------------------------------------------------------------
// mvdan-sh binding. It is a GopherJS build without typings: node fields are non-enumerable getters named as in the Go
// structs (https://pkg.go.dev/mvdan.cc/sh/v3/syntax), positions are byte offsets into the UTF-8 source.

interface ShPos {
  Offset(): number;
  IsValid(): boolean;
}
type ShNode = { readonly [field: string]: unknown } & { Pos(): ShPos; End(): ShPos };
interface ShParser {
  Parse(src: string, name: string): ShNode;
}
interface ShSyntax {
  NewParser(...options: unknown[]): ShParser;
  Variant(lang: unknown): unknown;
  LangBash: unknown;
  NodeType(node: unknown): string;
}

// createRequire rather than `import`: the package ships no type declarations.
const syntax = (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax }).syntax;

// ---------------------------------------------------------------------------------------------------------------
// Public API

export interface CommandSegment {
  /** The source text of the command, redirection or construct this verdict is about. */
  text: string;
  /** The program it runs once wrappers (env, timeout, xargs…) are looked through; null for non-commands. */
  program: string | null;
  risk: RiskTier;
  reasons: string[];
  /** True when this segment is a known network client (curl, ssh, git push, npm install, /dev/tcp…). */
  network: boolean;
  /** The literal words of a plain command (no assignments, expansions or globs); what an always-allow rule matches. */
  words?: string[] | null;
}

export interface CommandClassification extends Classification {
  rulePattern: string | null;
  /**
   * True when any segment is a known network client. Unknown programs may reach the network too, so a caller that
   * taints egress should treat every command that is not read-only as possibly networked; this flag adds certainty.
   */
  network: boolean;
  /**
   * A write target, or a path argument of a command that is not read-only, lies inside Deskhand's data folder. Such
   * calls should ask under every policy; `Classification` has no field for that yet, so the flag is offered here.
   * Best effort: paths built from variables cannot be seen.
   */
  touchesOwnData: boolean;
  /** Why the command must ask under every policy (sensitive paths, writes through links or hard links). */
  alwaysAskReasons: string[];
  /** Every path the classifier checked with the path guard (redirection targets, path arguments). */
  paths: PathCheck[];
  segments: CommandSegment[];
}

export const COMMAND_LIMITS = {
  /** Longer commands are not analysed (and so are high-risk). */
  maxChars: 10_000,
  /** Commands (pipeline stages, list members, substitutions, nested `sh -c` commands) per classification. */
  maxSegments: 64,
  /** Nesting depth of `sh -c '…'` strings that are parsed again. */
  maxDepth: 3,
} as const;

/** Entries kept by the parse and classification caches (least recently used first out). */
const CACHE_ENTRIES = 256;

function cacheGet<V>(cache: Map<string, V>, key: string): V | undefined {
  const v = cache.get(key);
  if (v !== undefined) {
    cache.delete(key);
    cache.set(key, v);
  }
  return v;
}

function cachePut<V>(cache: Map<string, V>, key: string, v: V): void {
  cache.set(key, v);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

/** Parsed sources: a parse depends on the text alone (the walk only reads the tree). */
const parses = new Map<string, { node: ShNode } | { error: string }>();
/**
 * Classifications that never looked at the file system (no path argument or redirection checked, no git repository
 * read), keyed by the command and the context the analysis reads. Those consulting the disk are recomputed every
 * time, since a path can change between two identical commands (a folder replaced by a symlink).
 */
const classifications = new Map<string, CommandClassification>();

/** Forgets cached parses and classifications (tests that change COMMAND_LIMITS or the environment). */
export function clearClassifierCache(): void {
  parses.clear();
  classifications.clear();
}

export function classifyCommand(command: string, ctx: ClassifyContext): CommandClassification {
  const key = JSON.stringify([command, ctx.cwd, ctx.workspaceRoots, ctx.dataDir, (ctx as { home?: string }).home ?? null, COMMAND_LIMITS]);
  const hit = cacheGet(classifications, key);
  // A copy: callers add reasons and paths to what they get.
  if (hit) return structuredClone(hit);
  try {
    const probe = { touchedDisk: false };
    const result = classify(command, ctx, probe);
    if (!probe.touchedDisk) cachePut(classifications, key, structuredClone(result));
    return result;
  } catch (err) {
    // Fail closed: a classifier bug must never let a command through as anything but high-risk.
    const reason = `could not analyse the command (${String(err instanceof Error ? err.message : err).slice(0, 200)})`;
    return {
      risk: 'high-risk',
      reasons: [reason],
      rulePattern: null,
      network: false,
      touchesOwnData: false,
      alwaysAskReasons: [],
      paths: [],
      segments: [{ text: String(command), program: null, risk: 'high-risk', reasons: [reason], network: false }],
    };
  }
}

function classify(command: string, ctx: ClassifyContext, probe: { touchedDisk: boolean }): CommandClassification {
  const high = (reason: string): CommandClassification => ({
    risk: 'high-risk',
    reasons: [reason],
    rulePattern: null,
    network: false,
    touchesOwnData: false,
    alwaysAskReasons: [],
    paths: [],
    segments: [{ text: command, program: null, risk: 'high-risk', reasons: [reason], network: false }],
  });
  if (typeof command !== 'string' || command.trim() === '') return high('empty command');
  if (command.length > COMMAND_LIMITS.maxChars) {
    return high(`command is longer than ${COMMAND_LIMITS.maxChars} characters; too complex to analyse`);
  }
  const hidden = invisibleCharacter(command);
  if (hidden) return high(`command contains ${hidden}, which can hide what it really does`);

  const analysis = new Analysis(ctx, probe);
  analysis.cwdChanges = /(^|[^A-Za-z0-9_-])(cd|pushd|popd)([^A-Za-z0-9_-]|$)/.test(command);
  const root = analysis.analyse(command, 0);
  if (!root.ok) return high(root.reason);
  if (analysis.count > COMMAND_LIMITS.maxSegments) {
    return high(`command has more than ${COMMAND_LIMITS.maxSegments} parts; too complex to analyse`);
  }

  const segments = analysis.segments;
  let risk: RiskTier = 'read-only';
  for (const s of segments) risk = maxRisk(risk, s.risk);
  const reasons = unique(segments.filter((s) => s.risk === risk).flatMap((s) => s.reasons));
  if (reasons.length === 0) reasons.push('no command to run');
  const single = root.simple && analysis.count === 1 && !analysis.compound && risk !== 'high-risk';
  return {
    risk,
    reasons,
    rulePattern: single && analysis.alwaysAsk.length === 0 ? root.normalized : null,
    ruleParts: segments.map((s) => ({ text: s.text, words: s.words ?? null, program: s.program, risk: s.risk })),
    network: segments.some((s) => s.network),
    touchesOwnData: analysis.touchesOwnData,
    alwaysAsk: analysis.alwaysAsk.length ? analysis.alwaysAsk.join('; ') : null,
    alwaysAskReasons: analysis.alwaysAsk,
    paths: analysis.paths,
    segments,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Tables

/** Programs whose arguments cannot turn them into writers or executors: any arguments, even from `xargs` input. */
const PURE_READERS = new Set([
  'cat', 'head', 'tail', 'wc', 'ls', 'dir', 'vdir', 'grep', 'egrep', 'fgrep', 'echo', 'pwd', 'stat', 'du', 'df',
  'cut', 'tr', 'diff', 'cmp', 'basename', 'dirname', 'realpath', 'readlink', 'which', 'type', 'jq', 'printenv', 'nl',
  'tac', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'strings', 'od',
  'hexdump', 'column', 'uname', 'whoami', 'id', 'groups', 'true', 'false', ':', 'sleep', 'seq', 'expr', 'paste',
  'join', 'comm', 'fold', 'fmt', 'rev', 'expand', 'unexpand', 'yes', 'nproc', 'arch', 'tty', 'uptime', 'locale',
  'getconf', 'free', 'ps', 'exit', 'return', 'break', 'continue', 'shift', 'base64', 'base32', 'basenc', 'zcat',
  'bzcat', 'xzcat', 'zstdcat', 'lsof',
]);

/** Directories whose programs may be named by absolute path (`/usr/bin/ls` is `ls`). */
const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/opt/homebrew/bin']);

const ELEVATION = new Set(['sudo', 'doas', 'su', 'pkexec', 'runuser', 'run0']);
const PAGERS = new Set(['less', 'more', 'most', 'pg', 'man', 'info']);
const EDITORS = new Set(['vi', 'vim', 'nvim', 'view', 'nano', 'pico', 'emacs', 'ed', 'ex', 'code']);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
const OTHER_SHELLS = new Set(['zsh', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'ash', 'elvish', 'nu', 'xonsh']);
const POSIX_SHELLS = new Set(['sh', 'bash', 'dash', 'rbash']);
const NETWORK_CLIENTS = new Set([
  'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'rsync', 'ftp', 'tftp', 'telnet', 'http',
  'https', 'xh', 'aria2c', 'ping', 'ping6', 'dig', 'nslookup', 'host', 'whois', 'traceroute', 'mosh', 'lftp', 'gh',
  'npx', 'pnpx', 'bunx', 'uvx', 'openssl',
]);
const INTERPRETERS = new Set([
  'python', 'python2', 'python3', 'node', 'nodejs', 'perl', 'ruby', 'php', 'lua', 'luajit', 'Rscript', 'R',
  'osascript', 'pwsh', 'powershell', 'tclsh', 'wish', 'java', 'jshell', 'irb', 'ghci', 'scala', 'kotlin', 'swift',
  'julia', 'groovy', 'deno', 'bun', 'tsx', 'ts-node',
]);
/** Package managers and build tools: high-risk (they run project scripts); network for the listed subcommands. */
const PACKAGE_MANAGERS: Record<string, ReadonlySet<string>> = {
  npm: new Set(['install', 'i', 'ci', 'add', 'update', 'up', 'upgrade', 'publish', 'view', 'info', 'show', 'search', 'login', 'adduser', 'exec', 'x', 'outdated', 'audit', 'pack', 'dist-tag', 'owner', 'access', 'deprecate', 'unpublish', 'create', 'init']),
  pnpm: new Set(['install', 'i', 'add', 'update', 'up', 'publish', 'dlx', 'view', 'info', 'outdated', 'audit', 'create', 'fetch']),
  yarn: new Set(['install', 'add', 'upgrade', 'up', 'publish', 'dlx', 'info', 'npm', 'outdated', 'audit', 'create']),
  bun: new Set(['install', 'i', 'add', 'update', 'publish', 'x', 'create', 'upgrade', 'outdated']),
  deno: new Set(['install', 'add', 'run', 'cache', 'upgrade', 'publish', 'compile']),
  pip: new Set(['install', 'download', 'wheel', 'search', 'index']),
  pip3: new Set(['install', 'download', 'wheel', 'search', 'index']),
  pipx: new Set(['install', 'run', 'upgrade', 'upgrade-all', 'inject']),
  uv: new Set(['pip', 'add', 'sync', 'lock', 'run', 'tool', 'venv', 'python', 'publish', 'init']),
  poetry: new Set(['install', 'add', 'update', 'lock', 'publish', 'search']),
  gem: new Set(['install', 'update', 'fetch', 'push', 'search']),
  bundle: new Set(['install', 'update', 'add', 'exec']),
  cargo: new Set(['install', 'fetch', 'update', 'publish', 'build', 'run', 'test', 'add', 'search', 'check']),
  go: new Set(['get', 'install', 'mod', 'build', 'run', 'test']),
  brew: new Set(['install', 'upgrade', 'update', 'fetch', 'reinstall', 'tap']),
  apt: new Set(['install', 'update', 'upgrade', 'full-upgrade', 'download', 'source']),
  'apt-get': new Set(['install', 'update', 'upgrade', 'dist-upgrade', 'download', 'source']),
  dnf: new Set(['install', 'update', 'upgrade', 'download']),
  yum: new Set(['install', 'update', 'upgrade']),
  pacman: new Set(['-S', '-Sy', '-Syu', '-Syy']),
  apk: new Set(['add', 'update', 'upgrade', 'fetch']),
  conda: new Set(['install', 'update', 'create']),
  composer: new Set(['install', 'require', 'update', 'create-project']),
  docker: new Set(['pull', 'push', 'run', 'build', 'login', 'search', 'compose']),
  podman: new Set(['pull', 'push', 'run', 'build', 'login', 'search']),
  make: new Set(),
  cmake: new Set(),
  gradle: new Set(['build', 'dependencies']),
  mvn: new Set(['install', 'package', 'compile', 'dependency:resolve', 'deploy']),
  tsc: new Set(),
  kubectl: new Set(['apply', 'get', 'describe', 'logs', 'exec', 'delete', 'create', 'port-forward']),
};
/** Exact argument lists that only print a version, per program. */
const VERSION_ARGS: Record<string, readonly string[]> = {
  node: ['--version', '-v'], nodejs: ['--version', '-v'], python: ['--version', '-V'], python2: ['--version', '-V'],
  python3: ['--version', '-V'], pip: ['--version', '-V'], pip3: ['--version', '-V'], npm: ['--version', '-v'],
  pnpm: ['--version', '-v'], yarn: ['--version', '-v'], bun: ['--version'], deno: ['--version', '-V'],
  ruby: ['--version'], gem: ['--version'], perl: ['--version', '-v'], php: ['--version', '-v'], go: ['version'],
  cargo: ['--version', '-V'], rustc: ['--version', '-V'], rustup: ['--version', '-V'], java: ['-version', '--version'],
  javac: ['-version', '--version'], gcc: ['--version'], 'g++': ['--version'], cc: ['--version'], clang: ['--version'],
  make: ['--version'], cmake: ['--version'], docker: ['--version', '-v'], tsc: ['--version', '-v'], bash: ['--version'],
  zsh: ['--version'], curl: ['--version', '-V'], wget: ['--version', '-V'], ssh: ['-V'], uv: ['--version', '-V'],
  poetry: ['--version'], kubectl: ['version'], gh: ['--version'], openssl: ['version'], awk: ['--version'],
  gawk: ['--version'], tar: ['--version'], lua: ['-v'], swift: ['--version'], tsx: ['--version', '-v'],
};
const WRITERS = new Set([
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'chmod', 'chown', 'chgrp', 'dd', 'truncate', 'shred', 'install', 'tar', 'zip',
  'unzip', 'gzip', 'gunzip', 'bzip2', 'xz', 'unxz', 'zstd', '7z', 'patch', 'mkfifo', 'mknod', 'split', 'csplit',
  'tee', 'sponge', 'rsync', 'unlink', 'link', 'mktemp',
]);
const CODE_RUNNERS: Record<string, string> = {
  eval: 'eval runs a string as shell code',
  source: 'source runs a file as shell code',
  '.': '`.` runs a file as shell code',
  alias: 'alias changes what command names mean',
  unalias: 'unalias changes what command names mean',
  trap: 'trap registers shell code to run later',
  enable: 'enable loads or toggles shell builtins',
  hash: 'hash changes where command names are looked up',
  shopt: 'shopt changes how the shell parses and expands',
  read: 'read assigns shell variables from input',
  mapfile: 'mapfile assigns shell variables from input',
  readarray: 'readarray assigns shell variables from input',
  unset: 'unset changes shell variables',
  export: 'export changes the environment of later commands',
  declare: 'declare changes shell variables',
  typeset: 'typeset changes shell variables',
  local: 'local changes shell variables',
  readonly: 'readonly changes shell variables',
  let: 'let evaluates arithmetic, which can run code through array subscripts',
  fc: 'fc runs commands from history',
  history: 'history can change or run shell history',
  kill: 'kill stops processes',
  pkill: 'pkill stops processes',
  killall: 'killall stops processes',
  watch: 'watch runs a command repeatedly through the shell',
  parallel: 'parallel runs commands built from input',
  script: 'script runs a shell',
  expect: 'expect runs scripts',
  crontab: 'crontab schedules commands',
  at: 'at schedules commands',
  batch: 'batch schedules commands',
  open: 'open launches other programs',
  'xdg-open': 'xdg-open launches other programs',
  osascript: 'osascript runs scripts',
};
/** Environment variables that may be set without changing what a read-only program does. */
const SAFE_ENV = /^(LC_[A-Z_]+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES|TERM|COLORTERM|GREP_COLORS?|LS_COLORS|TIME_STYLE|POSIXLY_CORRECT|IFS)$/;
/** Names known to make programs run other code or load other files; named in the reason. */
const KNOWN_DANGEROUS_ENV =
  /^(PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|LESSOPEN|LESSCLOSE|LESS|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PATH|PROMPT_COMMAND|GIT_\w+|EDITOR|VISUAL|SHELLOPTS|BASHOPTS|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5\w*|PERLLIB|RUBYOPT|RUBYLIB|HOME|XDG_CONFIG_HOME|RIPGREP_CONFIG_PATH|GCONV_PATH|LOCPATH|CDPATH|GLOBIGNORE|SHELL|TAR_OPTIONS|JQ_LIB|AWKPATH|BROWSER|SSH_ASKPASS|SUDO_ASKPASS|GLIBC_TUNABLES|MALLOC_\w+)$/;
const SAFE_SHELL_OPTIONS = new Set(['pipefail', 'errexit', 'nounset', 'xtrace', 'verbose', 'noglob', 'noclobber']);
const PROXY_ENV = /^(http|https|ftp|all|no)_proxy$/i;

// Token values of mvdan/sh v3 (syntax/tokens.go) for the operators this file reads.
const OP = {
  rdrOut: 54, appOut: 55, rdrIn: 56, rdrInOut: 57, dplIn: 58, dplOut: 59, clbOut: 60, hdoc: 61, dashHdoc: 62,
  wordHdoc: 63, rdrAll: 64, appAll: 65, testVarSet: 110, testRefVar: 111, paramExpAt: 84,
} as const;
/** `[[ a -eq b ]]` and friends evaluate both sides as arithmetic. */
const ARITH_TESTS = new Set([116, 117, 118, 119, 120, 121]);
const OUTPUT_REDIRS = new Set<number>([OP.rdrOut, OP.appOut, OP.rdrInOut, OP.clbOut, OP.rdrAll, OP.appAll]);

// ---------------------------------------------------------------------------------------------------------------
// Words

interface WordInfo {
  /** Source text. */
  text: string;
  /** The value after quote removal when the word is fully static (no expansion, glob, brace or tilde); else null. */
  value: string | null;
  /** Static apart from expansions that are all inside double quotes (no word splitting, no globbing). */
  single: boolean;
  /** A bare unquoted name with no escapes: the only shape accepted for a command name. */
  plainName: boolean;
  /** For a plain name: the source text of its single unquoted literal. */
  raw: string | null;
  node: ShNode;
}

function isGlobOrBrace(raw: string): boolean {
  let braceOpen = -1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return true;
    if (c === '{') braceOpen = i;
    if (c === '}' && braceOpen >= 0) {
      const inner = raw.slice(braceOpen + 1, i);
      if (inner.includes(',') || inner.includes('..')) return true;
    }
  }
  return false;
}

function unescapeUnquoted(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      if (next !== '\n') out += next;
    } else out += c;
  }
  return out;
}

function unescapeDoubleQuoted(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    const next = raw[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      i++;
      if (next !== '\n') out += next;
    } else out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Option scanning (getopt-like, enough to find dangerous flags)

interface ScannedOption {
  name: string;
  long: boolean;
  value?: string;
}
interface Scan {
  options: ScannedOption[];
  operands: string[];
}

interface ScanSpec {
  /** Short options that take a value (attached or as the next argument). */
  short?: string;
  /** Short options whose value can only be attached (`-i.bak`). */
  optionalShort?: string;
  /** Long options that take a value (as `--name=v` or the next argument). */
  long?: readonly string[];
  /** Stop at the first operand (POSIX style: the rest is a command and its arguments). */
  stopAtOperand?: boolean;
}

function scanOptions(args: readonly string[], spec: ScanSpec = {}): Scan {
  const options: ScannedOption[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      let value = eq < 0 ? undefined : a.slice(eq + 1);
      if (value === undefined && name !== '' && spec.long?.some((l) => l.startsWith(name))) value = args[++i] ?? '';
      options.push({ name, long: true, value });
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        if (spec.short?.includes(c)) {
          options.push({ name: c, long: false, value: j + 1 < a.length ? a.slice(j + 1) : (args[++i] ?? '') });
          break;
        }
        if (spec.optionalShort?.includes(c)) {
          options.push({ name: c, long: false, value: a.slice(j + 1) });
          break;
        }
        options.push({ name: c, long: false });
      }
      continue;
    }
    if (spec.stopAtOperand) {
      operands.push(...args.slice(i));
      break;
    }
    operands.push(a);
  }
  return { options, operands };
}

/** GNU getopt_long accepts any unambiguous prefix, so `--out` means `--output`: match prefixes, not names. */
function findLong(scan: Scan, dangerous: readonly string[]): string | null {
  for (const o of scan.options) {
    if (o.long && o.name !== '' && dangerous.some((d) => d.startsWith(o.name))) return `--${o.name}`;
  }
  return null;
}
function findShort(scan: Scan, dangerous: string): string | null {
  for (const o of scan.options) if (!o.long && dangerous.includes(o.name)) return `-${o.name}`;
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// sed scripts: read-only only when no command or flag writes files (w, W, s///w) or runs commands (e, s///e).

function sedScriptIsSafe(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipSpace = (): void => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  const readDelimited = (delim: string): boolean => {
    // Up to the next unescaped delimiter (GNU sed does not treat brackets specially here).
    while (i < n) {
      const c = script[i]!;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '\n' && delim !== '\n') return false;
      i++;
      if (c === delim) return true;
    }
    return false;
  };
  const readAddress = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i++;
    } else if (c === '$') {
      i++;
    } else if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        i++;
        delim = script[i] ?? '';
        if (delim === '' || delim === '\n' || delim === '\\') return false;
      }
      i++;
      if (!readDelimited(delim)) return false;
      while (i < n && (script[i] === 'I' || script[i] === 'M')) i++;
    } else if (c === '+' || c === '~') {
      i++;
      while (i < n && /[0-9]/.test(script[i]!)) i++;
    }
    return true;
  };
  const toEndOfCommand = (): void => {
    // Labels and b/t/T targets end at `;` or newline in GNU sed.
    while (i < n && script[i] !== ';' && script[i] !== '\n') i++;
  };
  const toEndOfLine = (): void => {
    while (i < n && script[i] !== '\n') {
      if (script[i] === '\\') i++;
      i++;
    }
  };

  while (i < n) {
    const c = script[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === ';') {
      i++;
      continue;
    }
    if (c === '#') {
      toEndOfLine();
      continue;
    }
    const before = i;
    if (!readAddress()) return false;
    if (i > before) {
      skipSpace();
      if (script[i] === ',') {
        i++;
        skipSpace();
        if (!readAddress()) return false;
      }
    }
    skipSpace();
    while (script[i] === '!') {
      i++;
      skipSpace();
    }
    const cmd = script[i];
    if (cmd === undefined) return before === i; // an address with no command is an error; nothing runs
    i++;
    switch (cmd) {
      case '{':
        continue; // a block opens; the next command follows directly
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break;
      case 'l':
      case 'q':
      case 'Q':
      case 'L':
        skipSpace();
        while (i < n && /[0-9]/.test(script[i]!)) i++;
        break;
      case 'a':
      case 'i':
      case 'c':
        toEndOfLine();
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        toEndOfCommand();
        break;
      case 'r':
      case 'R':
        // Reads a file into the output: still read-only.
        toEndOfLine();
        break;
      case 's': {
        const delim = script[i];
        if (delim === undefined || delim === '\n' || delim === '\\') return false;
        i++;
        if (!readDelimited(delim)) return false;
        // The replacement may span escaped newlines.
        while (i < n) {
          const r = script[i]!;
          if (r === '\\') {
            i += 2;
            continue;
          }
          i++;
          if (r === delim) break;
          if (i >= n) return false;
        }
        while (i < n && /[gpiImM0-9]/.test(script[i]!)) i++;
        const flag = script[i];
        if (flag === 'e' || flag === 'w' || flag === 'W') return false;
        break;
      }
      case 'y': {
        const delim = script[i];
        if (delim === undefined || delim === '\n' || delim === '\\') return false;
        i++;
        if (!readDelimited(delim) || !readDelimited(delim)) return false;
        break;
      }
      default:
        // e, w, W and anything unknown.
        return false;
    }
    skipSpace();
    const end = script[i];
    if (end !== undefined && end !== ';' && end !== '\n' && end !== '}' && end !== '#') return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Analysis

interface Verdict {
  risk: RiskTier;
  reasons: string[];
  network: boolean;
  program: string | null;
}

const readOnly = (program: string, why = 'read-only'): Verdict => ({ risk: 'read-only', reasons: [`${program}: ${why}`], network: false, program });
const lowRisk = (program: string, why: string): Verdict => ({ risk: 'low-risk', reasons: [`${program}: ${why}`], network: false, program });
const highRisk = (program: string | null, why: string, network = false): Verdict => ({
  risk: 'high-risk',
  reasons: [program ? `${program}: ${why}` : why],
  network,
  program,
});

function merge(into: Verdict, v: Verdict): Verdict {
  return {
    risk: maxRisk(into.risk, v.risk),
    reasons: [...into.reasons, ...v.reasons],
    network: into.network || v.network,
    program: v.program ?? into.program,
  };
}

type Parsed = { ok: true; simple: boolean; normalized: string } | { ok: false; reason: string };

class Analysis {
  readonly segments: CommandSegment[] = [];
  /** Commands seen so far, nested `sh -c` strings included. */
  count = 0;
  /** Anything beyond one plain command: operators, substitutions, output redirections, control flow. */
  compound = false;
  /** The command changes directory somewhere, so relative write targets cannot be placed. */
  cwdChanges = false;
  touchesOwnData = false;
  /** Reasons to ask under every policy, in the order found. */
  readonly alwaysAsk: string[] = [];
  readonly paths: PathCheck[] = [];
  private readonly guard: PathGuard;

  constructor(
    ctx: ClassifyContext,
    /** Set when the analysis consulted the file system (then its result is not cached). */
    private readonly probe: { touchedDisk: boolean } = { touchedDisk: false },
  ) {
    this.guard = new PathGuard(ctx);
  }

  ask(reason: string): void {
    if (!this.alwaysAsk.includes(reason)) this.alwaysAsk.push(reason);
  }

  /** Parses and walks one source string (the command, or the string of a nested `sh -c`). */
  analyse(src: string, depth: number): Parsed {
    let parsed = cacheGet(parses, src);
    if (!parsed) {
      try {
        parsed = { node: syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(src, 'command') };
      } catch (err) {
        parsed = { error: parseErrorText(err) };
      }
      cachePut(parses, src, parsed);
    }
    if ('error' in parsed) return { ok: false, reason: `could not parse the command (${String(parsed.error)}); treated as high-risk` };
    const file = parsed.node;
    const walker = new Walker(this, Buffer.from(src, 'utf8'), depth);
    try {
      walker.visit(file);
    } catch (err) {
      if (err instanceof TooComplex) return { ok: false, reason: err.message };
      return { ok: false, reason: `could not analyse the command (${String(err instanceof Error ? err.message : err).slice(0, 200)})` };
    }
    const stmts = asArray(file.Stmts);
    const only = stmts.length === 1 ? stmts[0] : undefined;
    const simple = only !== undefined && nodeType(only.Cmd) === 'CallExpr' && !walker.sawNonSimple;
    return { ok: true, simple, normalized: simple && only ? walker.normalizedStmt(only) : '' };
  }

  addSegment(s: CommandSegment): void {
    this.segments.push(s);
  }

  /** Records a sensitive path: the command asks under every policy. */
  private noteSensitive(check: PathCheck, access: 'reads' | 'writes'): void {
    if (check.holdsSensitive && !check.sensitive) {
      this.ask(`the command ${access === 'reads' ? 'reaches' : 'changes'} ${check.resolved}, which holds sensitive locations (${check.holdsSensitive})`);
      return;
    }
    if (!check.sensitive) return;
    // Code-running files (Makefile, CI configs…) are ordinary to read; creating or changing one asks.
    if (check.sensitive.kind === 'code-runner' && access === 'reads') return;
    if (check.sensitive.kind === 'deskhand-data') {
      if (access === 'writes') this.touchesOwnData = true;
      this.ask("the command touches Deskhand's own data folder");
    } else {
      this.ask(`the command ${access} ${check.resolved}, ${check.sensitive.what} (${SENSITIVE_LABEL[check.sensitive.kind]})`);
    }
  }

  /**
   * Checks the path arguments of a command with the path guard (best effort: a word that is not a plain literal is
   * judged from its text with ~ and $HOME expanded). Sensitive paths make the command ask under every policy;
   * Deskhand's own data counts as touched when the command is not read-only.
   */
  noteArgs(args: readonly WordInfo[], readOnly: boolean): void {
    for (const w of args) this.noteSensitivePath(guessPath(w), readOnly ? 'read' : 'write');
  }

  /** Records `p` when the path guard calls it sensitive. */
  noteSensitivePath(p: string | null, access: 'read' | 'write'): void {
    if (p === null || p === '' || p.startsWith('-') || p.length > 4096 || p.includes('\n') || /^\/dev\//.test(p)) return;
    this.probe.touchedDisk = true;
    const check = this.guard.check(p, access, { raw: true });
    if (!check.error && !check.sensitive && !check.holdsSensitive) {
      // Credentials are judged by content too: a config file of any name whose text assigns a credential-named
      // setting is read like a `.env` (a field extractor such as `jq .token` prints the bare value, which output
      // redaction cannot tell from any other word).
      const names = credentialContent(check.resolved);
      if (names) this.ask(`the command ${access === 'read' ? 'reads' : 'reaches'} ${check.resolved}, whose content holds credentials (${names})`);
    }
    if (check.error || (!check.sensitive && !check.holdsSensitive)) return;
    if (check.sensitive?.kind === 'code-runner' && access === 'read') return;
    this.paths.push(check);
    this.noteSensitive(check, access === 'read' ? 'reads' : 'writes');
  }

  /**
   * The repository a git command would use (as git discovers it: --git-dir, else upwards from -C or the cwd, a `.git`
   * folder, a `.git` file pointing elsewhere, or a folder that is itself a git dir) and the settings in its config
   * files that make git run programs.
   */
  gitRepository(dir: string | null, gitDir: string | null): { configs: string[]; dangerous: string[] } {
    this.probe.touchedDisk = true;
    const cwd = this.guard.cwd;
    const abs = (p: string) => {
      const e = p === '~' ? homedir() : p.startsWith('~/') ? `${homedir()}/${p.slice(2)}` : p;
      return isAbsolute(e) ? e : `${cwd}${sep}${e}`;
    };
    const found = gitDir ? abs(gitDir) : findGitDir(dir ? abs(dir) : cwd);
    if (!found) return { configs: [], dangerous: [] };
    const files = [`${found}${sep}config`, `${found}${sep}config.worktree`];
    try {
      const common = readFileSync(`${found}${sep}commondir`, 'utf8').trim();
      if (common) files.push(`${isAbsolute(common) ? common : `${found}${sep}${common}`}${sep}config`);
    } catch {
      // not a linked worktree
    }
    const configs: string[] = [];
    const dangerous: string[] = [];
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch {
        continue;
      }
      configs.push(f);
      for (const key of gitConfigKeys(text)) if (DANGEROUS_GIT_KEY.test(key) && !dangerous.includes(key)) dangerous.push(key);
    }
    return { configs, dangerous };
  }

  /** Where a write to `target` lands, judged by the path guard the file tools use: inside the workspace (low-risk) or not. */
  writeTarget(program: string, target: string | null, what = 'writes', opts: { changesExisting?: boolean } = {}): Verdict {
    if (target === null) return highRisk(program, `${what} to a path that is not a plain literal (expansions, globs or ~ cannot be checked)`);
    if (/^\/dev\/(tcp|udp)\//.test(target)) return highRisk(program, `opens a network connection (${target})`, true);
    if (target === '') return highRisk(program, `${what} to an empty path`);
    if (!isAbsolute(target) && this.cwdChanges) {
      return highRisk(program, `${what} to relative path ${target} after changing directory; the target cannot be checked`);
    }
    this.probe.touchedDisk = true;
    const check = this.guard.check(target, 'write', { raw: true });
    this.paths.push(check);
    if (check.error) return highRisk(program, `${what} to ${target}, which cannot be checked (${check.error})`);
    const resolved = check.resolved;
    this.noteSensitive(check, 'writes');
    if (check.sensitive?.kind === 'deskhand-data') return highRisk(program, `${what} inside Deskhand's data folder (${resolved})`);
    if (check.sensitive) return highRisk(program, `${what} to ${resolved}: ${check.sensitive.what}`);
    if (check.throughLink) {
      const dangling = !check.exists;
      this.ask(`the command writes through the symbolic link ${check.throughLink.link} (to ${resolved})`);
      return highRisk(program, `${what} through a ${dangling ? 'dangling ' : ''}symlink (${target} → ${resolved})${check.root ? '' : ', outside the workspace'}`);
    }
    if (resolved.split(sep).includes('.git')) {
      return highRisk(program, `${what} inside git metadata (${resolved}); hooks and config there can run programs`);
    }
    if (check.hardLinks > 1) {
      this.ask(`the command writes to ${resolved}, which has ${check.hardLinks} hard links`);
      return highRisk(program, `${what} to a hard-linked file (${resolved}), which may also live outside the workspace`);
    }
    // No looser than the file tools: truncating or appending to an existing file is what write_file overwriting is.
    if (opts.changesExisting && check.exists && check.hardLinks > 0) {
      return highRisk(program, `${what} to ${resolved}, an existing file it truncates or changes (as risky as write_file overwriting it)`);
    }
    if (check.root) return lowRisk(program, `${what} inside the workspace (${resolved})`);
    return highRisk(program, `${what} outside the workspace (${resolved}${check.links.length ? `, through a symlink` : ''})`);
  }
}

class TooComplex extends Error {}

class Walker {
  /** Set when anything makes the top-level command more than one plain command. */
  sawNonSimple = false;

  constructor(
    private readonly a: Analysis,
    private readonly buf: Buffer,
    private readonly depth: number,
  ) {}

  private text(node: ShNode): string {
    try {
      return this.buf.subarray(node.Pos().Offset(), node.End().Offset()).toString('utf8');
    } catch {
      return '';
    }
  }

  private nonSimple(): void {
    this.sawNonSimple = true;
    this.a.compound = true;
  }

  private flag(node: ShNode, v: Verdict, words: string[] | null = null): void {
    this.a.addSegment({ text: this.text(node), program: v.program, risk: v.risk, reasons: v.reasons, network: v.network, words });
  }

  visit(node: ShNode): void {
    const t = nodeType(node);
    switch (t) {
      case null: // a plain struct (Slice, Replace, Expansion…)
      case 'File':
      case 'Word':
      case 'Lit':
      case 'SglQuoted':
      case 'DblQuoted':
      case 'Comment':
      case 'CaseItem':
      case 'WordIter':
      case 'ArrayExpr':
      case 'ExtGlob':
      case 'BraceExp':
      case 'UnaryArithm':
      case 'BinaryArithm':
      case 'ParenArithm':
      case 'ParenTest':
      case 'Redirect':
        break;
      case 'Stmt':
        this.stmt(node);
        break;
      case 'CallExpr':
        this.call(node);
        break;
      case 'BinaryCmd':
      case 'Block':
      case 'Subshell':
      case 'IfClause':
      case 'WhileClause':
      case 'CaseClause':
      case 'TimeClause':
      case 'CmdSubst':
      case 'ProcSubst':
        this.nonSimple();
        break;
      case 'ForClause':
        this.nonSimple();
        break;
      case 'CStyleLoop':
      case 'ArithmExp':
      case 'ArithmCmd':
        this.nonSimple();
        if (!constantArithmetic(node)) this.flag(node, highRisk(null, 'arithmetic on variables or command output can run code (bash evaluates array subscripts)'));
        break;
      case 'LetClause':
        this.nonSimple();
        this.flag(node, highRisk('let', 'evaluates arithmetic, which can run code through array subscripts'));
        break;
      case 'ParamExp':
        this.nonSimple();
        this.paramExp(node);
        break;
      case 'Assign':
      case 'ArrayElem':
        if (node.Index && !constantArithmetic(node.Index as ShNode)) {
          this.flag(node, highRisk(null, 'array subscripts with variables are evaluated as arithmetic and can run code'));
        }
        break;
      case 'TestClause':
        this.nonSimple();
        break;
      case 'BinaryTest':
        if (ARITH_TESTS.has(Number(node.Op)) && !(constantArithmetic(node.X as ShNode) && constantArithmetic(node.Y as ShNode))) {
          this.flag(node, highRisk(null, '[[ … -eq … ]] evaluates both sides as arithmetic, which can run code'));
        }
        break;
      case 'UnaryTest':
        if (Number(node.Op) === OP.testVarSet || Number(node.Op) === OP.testRefVar) {
          this.flag(node, highRisk(null, '[[ -v … ]] evaluates array subscripts, which can run code'));
        }
        break;
      case 'FuncDecl':
        this.nonSimple();
        this.flag(node, highRisk(null, 'defines a shell function, which can shadow any command'));
        break;
      case 'CoprocClause':
        this.nonSimple();
        this.flag(node, highRisk('coproc', 'starts a coprocess'));
        break;
      case 'DeclClause': {
        this.nonSimple();
        const variant = (node.Variant as ShNode | null)?.Value;
        this.flag(node, highRisk(String(variant ?? 'declare'), 'changes shell variables or the environment of later commands'));
        break;
      }
      default:
        this.nonSimple();
        this.flag(node, highRisk(null, `uses shell syntax this classifier does not know (${t})`));
    }
    for (const child of children(node)) this.visit(child);
  }

  private paramExp(node: ShNode): void {
    const exp = node.Exp as ShNode | null;
    if (node.Excl && !node.Names && !isAllIndex(node.Index as ShNode | null)) {
      this.flag(node, highRisk(null, '${!name} indirection can evaluate array subscripts, which can run code'));
    }
    if (exp && Number(exp.Op) === OP.paramExpAt) {
      this.flag(node, highRisk(null, '${name@…} transformations (such as @P) can run code'));
    }
    const index = node.Index as ShNode | null;
    if (index && !isAllIndex(index) && !constantArithmetic(index)) {
      this.flag(node, highRisk(null, 'array subscripts with variables are evaluated as arithmetic and can run code'));
    }
    const slice = node.Slice as ShNode | null;
    if (slice) {
      for (const part of [slice.Offset, slice.Length]) {
        if (part && !constantArithmetic(part as ShNode)) {
          this.flag(node, highRisk(null, '${name:offset:length} with variables is evaluated as arithmetic and can run code'));
        }
      }
    }
  }

  private stmt(node: ShNode): void {
    if (node.Background || node.Negated || node.Coprocess) this.nonSimple();
    for (const r of asArray(node.Redirs)) this.redirect(r);
  }

  private redirect(r: ShNode): void {
    const op = Number(r.Op);
    const word = r.Word ? this.word(r.Word as ShNode) : null;
    const target = word?.value ?? null;
    if (op === OP.rdrIn) {
      if (target !== null && /^\/dev\/(tcp|udp)\//.test(target)) {
        this.nonSimple();
        this.flag(r, highRisk(null, `opens a network connection (${target})`, true));
      } else {
        if (target === null) this.nonSimple();
        this.a.noteSensitivePath(word ? guessPath(word) : null, 'read');
      }
      return;
    }
    this.nonSimple();
    if (op === OP.hdoc || op === OP.dashHdoc || op === OP.wordHdoc) return;
    if (op === OP.dplIn || op === OP.dplOut) {
      if (target !== null && /^([0-9]+-?|-)$/.test(target)) return;
      if (op === OP.dplIn) {
        this.flag(r, highRisk(null, `unusual input duplication (${this.text(r)})`));
        return;
      }
    } else if (!OUTPUT_REDIRS.has(op)) {
      this.flag(r, highRisk(null, `unknown redirection (${this.text(r)})`));
      return;
    }
    if (target !== null && /^\/dev\/(null|stdout|stderr|fd\/[12])$/.test(target)) return;
    if (target === null && word) this.a.noteSensitivePath(guessPath(word), 'write');
    this.flag(r, this.a.writeTarget('redirection', target, 'writes output', { changesExisting: true }));
  }

  word(node: ShNode): WordInfo {
    const parts = asArray(node.Parts);
    let value = '';
    let literal = true;
    let single = true;
    let plainName = parts.length === 1 && nodeType(parts[0]) === 'Lit';
    parts.forEach((part, index) => {
      switch (nodeType(part)) {
        case 'Lit': {
          const raw = String(part.Value);
          if (raw.includes('\\')) plainName = false;
          if (isGlobOrBrace(raw) || (index === 0 && raw.startsWith('~'))) {
            literal = false;
            single = false;
          }
          value += unescapeUnquoted(raw);
          break;
        }
        case 'SglQuoted':
          plainName = false;
          if (part.Dollar) literal = false;
          else value += String(part.Value);
          break;
        case 'DblQuoted':
          plainName = false;
          if (part.Dollar) literal = false;
          for (const inner of asArray(part.Parts)) {
            if (nodeType(inner) === 'Lit') value += unescapeDoubleQuoted(String(inner.Value));
            else literal = false;
          }
          break;
        default:
          plainName = false;
          literal = false;
          single = false;
      }
    });
    const raw = plainName ? String(parts[0]!.Value) : null;
    return { text: this.text(node), value: literal ? value : null, single, plainName, raw, node };
  }

  /** The normalized text of a single plain command: its words separated by single spaces. */
  normalizedStmt(stmt: ShNode): string {
    const call = stmt.Cmd as ShNode;
    const words = [
      ...asArray(call.Assigns).map((a) => this.text(a)),
      ...asArray(call.Args).map((w) => this.text(w)),
      ...asArray(stmt.Redirs).map((r) => this.text(r)),
    ];
    return words.join(' ');
  }

  private call(node: ShNode): void {
    this.a.count++;
    if (this.a.count > COMMAND_LIMITS.maxSegments) {
      throw new TooComplex(`command has more than ${COMMAND_LIMITS.maxSegments} parts; too complex to analyse`);
    }
    const args = asArray(node.Args).map((w) => this.word(w));
    const assigns = asArray(node.Assigns);
    let v: Verdict = { risk: 'read-only', reasons: [], network: false, program: null };
    for (const assign of assigns) v = merge(v, envAssignment(assign, args.length === 0));
    if (args.length === 0) {
      if (v.reasons.length === 0) v.reasons.push('assigns a shell variable');
    } else {
      v = merge(v, this.classifyArgv(args));
      // Text arguments of echo and printf are not paths; every other command's path arguments are checked.
      const program = args[0]?.value;
      if (program !== 'echo' && program !== 'printf') this.a.noteArgs(args.slice(1), v.risk === 'read-only');
    }
    const literal = assigns.length === 0 && args.length > 0 && args.every((a) => a.value !== null);
    this.flag(node, v, literal ? args.map((a) => a.value as string) : null);
  }

  /** Classifies `argv` (a program and its arguments), looking through wrappers. */
  classifyArgv(argv: readonly WordInfo[], viaXargs = false): Verdict {
    const nameWord = argv[0];
    if (!nameWord) return highRisk(null, 'no command to run');
    const raw = nameWord.raw;
    if (raw === null || !/^(\[|:|[A-Za-z0-9_./][A-Za-z0-9_.+/:@%-]*)$/.test(raw)) {
      const why = /[^\x00-\x7f]/.test(nameWord.text) ? 'contains non-ASCII characters' : 'is not a plain word';
      return highRisk(null, `obfuscated command name ${JSON.stringify(nameWord.text)} (${why})`);
    }
    let name = raw;
    if (name.includes('/')) {
      if (!SYSTEM_DIRS.has(dirname(name))) return highRisk(name, 'runs a program by path; only programs from the system folders are classified');
      name = basename(name);
    }
    const rest = argv.slice(1);
    const values = rest.map((w) => w.value);
    const literal = values.every((x): x is string => x !== null) ? (values as string[]) : null;
    const needLiteral = (why = 'checks its flags'): Verdict | null =>
      literal ? null : highRisk(name, `has arguments that are not plain literals (expansions, globs); the classifier ${why} and cannot see through them`);

    if (viaXargs && !PURE_READERS.has(name)) {
      return highRisk(name, 'xargs appends arguments read from input, and this program has flags that could make it write or run commands');
    }

    if (PURE_READERS.has(name)) return readOnly(name);
    if (ELEVATION.has(name)) return highRisk(name, 'runs a command with elevated privileges');
    if (name === 'less' && literal && lessIsReadOnly(literal)) return readOnly('less', 'with -F and no terminal it prints the file (LESSOPEN is not passed to commands)');
    if (name === 'man' && literal && manIsReadOnly(literal)) return readOnly('man', 'prints a manual page (no terminal, so no pager)');
    if (PAGERS.has(name)) return highRisk(name, 'pagers can run commands (!cmd, LESSOPEN); pipe to head instead');
    if (EDITORS.has(name)) return highRisk(name, 'interactive editors can write files and run commands');
    const versionArgs = Object.hasOwn(VERSION_ARGS, name) ? VERSION_ARGS[name] : undefined;
    if (versionArgs && literal?.length === 1 && versionArgs.includes(literal[0]!)) return readOnly(name, 'prints its version');
    if (AWKS.has(name)) {
      const why = literal ? awkUnsafe(literal) : 'has arguments that are not plain literals, so the awk program cannot be checked';
      return why ? highRisk(name, why) : readOnly(name, 'the awk program has no system(), pipes or output redirections');
    }
    if (OTHER_SHELLS.has(name)) return highRisk(name, `runs ${name} code, whose expansion rules this classifier does not analyse`);
    if (name === 'read' && literal) {
      // `while IFS= read -r line` is common: allow plain lower-case names (no subscripts, no special variables).
      const scan = scanOptions(literal, { short: 'dnNtpua' });
      const names = [...scan.operands, ...scan.options.filter((o) => o.name === 'a').map((o) => o.value ?? '')];
      if (scan.options.every((o) => 'rsdnNtpua'.includes(o.name) && !o.long) && names.every((n) => /^[a-z_][a-z0-9_]*$/.test(n))) {
        return readOnly('read', 'reads input into shell variables');
      }
    }
    const codeRunner = Object.hasOwn(CODE_RUNNERS, name) ? CODE_RUNNERS[name] : undefined;
    if (codeRunner) return highRisk(name, codeRunner.replace(/^\S+ /, ''));
    if (NETWORK_CLIENTS.has(name)) return highRisk(name, 'network: contacts other machines', true);
    if (INTERPRETERS.has(name)) {
      const inline = literal?.some((a) => /^-[A-Za-z]*[ceEr]$/.test(a) || a === '--eval' || a === '--print' || a === '-p');
      return highRisk(name, inline ? 'runs inline code' : 'runs code (scripts or modules)');
    }
    if (name === 'npm' && literal && /^(ls|list|ll|la)$/.test(literal[0] ?? '') && literal.slice(1).every((a) => /^(--?[a-z][a-z-]*(=[\w.-]*)?|[@\w./-]+)$/.test(a) && !/^--?(prefix|userconfig|globalconfig|cache|script-shell|node-options|onload-script)/.test(a))) {
      return readOnly('npm', 'npm ls lists installed packages');
    }
    if (name === 'tsc' && literal && literal.includes('--noEmit') && tscIsReadOnly(literal)) return readOnly('tsc', 'type-checks without writing output');
    if (Object.hasOwn(PACKAGE_MANAGERS, name) || name === 'poetry' || name === 'bundle' || name === 'go') {
      // A package manager's own config command: a key that is not known harmless can make it run a program later.
      const write = packageConfigWrite(name, literal);
      if (write) {
        const risky = write.keys.filter((k) => !HARMLESS_PACKAGE_KEYS.has(k.toLowerCase()));
        if (write.keys.length === 0 || risky.length) this.a.ask(`${name} ${write.verb} changes ${name}'s own configuration (${risky.join(', ') || 'keys the classifier cannot read'}); settings like script-shell, ignore-scripts or an index URL decide what it runs later`);
        return highRisk(name, `${name} ${write.verb} changes its configuration`);
      }
    }
    if (Object.hasOwn(PACKAGE_MANAGERS, name)) {
      const sub = literal?.find((a) => !a.startsWith('-')) ?? literal?.[0];
      const networked = literal === null || (sub !== undefined && PACKAGE_MANAGERS[name]!.has(sub));
      return networked
        ? highRisk(name, `network: ${sub ? `${name} ${sub}` : name} can download or upload packages and run their scripts`, true)
        : highRisk(name, 'runs project scripts or changes installed packages');
    }

    if (POSIX_SHELLS.has(name)) return this.shell(name, argv);

    switch (name) {
      // ---- wrappers: classify the command they run
      case 'env': {
        if (!literal) return needLiteral()!;
        let i = 0;
        let v: Verdict = readOnly('env', 'prints the environment');
        for (; i < literal.length; i++) {
          const a = literal[i]!;
          if (a === '-i' || a === '--ignore-environment' || a === '-0' || a === '--null' || a === '-') continue;
          if (a === '-u' || a === '--unset') {
            i++;
            continue;
          }
          if (a.startsWith('--unset=') || (a.startsWith('-u') && a.length > 2)) continue;
          if (a === '--') {
            i++;
            break;
          }
          if (a.startsWith('-')) return highRisk('env', `option ${a} is not known to be safe (-S splits strings into commands, -C changes directory)`);
          const eq = a.indexOf('=');
          if (eq > 0) {
            v = merge(v, envName(a.slice(0, eq), false));
            continue;
          }
          break;
        }
        if (i >= literal.length) return v;
        return merge({ ...v, reasons: v.risk === 'read-only' ? [] : v.reasons }, this.classifyArgv(argv.slice(1 + i)));
      }
      case 'timeout': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'sk', long: ['signal', 'kill-after'], stopAtOperand: true });
        if (scan.operands.length < 2) return highRisk('timeout', 'needs a duration and a command');
        return this.classifyArgv(argv.slice(argv.length - scan.operands.length + 1));
      }
      case 'nice': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'n', long: ['adjustment'], stopAtOperand: true });
        if (scan.operands.length === 0) return readOnly('nice', 'prints the niceness');
        return this.classifyArgv(argv.slice(argv.length - scan.operands.length));
      }
      case 'nohup':
      case 'setsid':
      case 'stdbuf':
      case 'builtin': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: name === 'stdbuf' ? 'ioe' : '', long: ['input', 'output', 'error'], stopAtOperand: true });
        if (scan.operands.length === 0) return name === 'builtin' ? readOnly(name) : highRisk(name, 'needs a command');
        return this.classifyArgv(argv.slice(argv.length - scan.operands.length));
      }
      case 'command': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { stopAtOperand: true });
        if (scan.options.some((o) => o.name === 'v' || o.name === 'V')) return readOnly('command', 'looks up command names');
        if (scan.options.some((o) => o.name !== 'p')) return highRisk('command', 'unknown option');
        if (scan.operands.length === 0) return readOnly('command');
        return this.classifyArgv(argv.slice(argv.length - scan.operands.length));
      }
      case 'exec': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'a', stopAtOperand: true });
        if (scan.operands.length === 0) return readOnly('exec', 'applies redirections to the shell');
        return this.classifyArgv(argv.slice(argv.length - scan.operands.length));
      }
      case 'time': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'ofa', long: ['output', 'format'], stopAtOperand: true });
        if (scan.options.some((o) => o.name !== 'p' && o.name !== 'v' && o.name !== 'verbose' && o.name !== 'portability')) {
          return highRisk('time', 'option may write a file (-o)');
        }
        if (scan.operands.length === 0) return readOnly('time');
        return this.classifyArgv(argv.slice(argv.length - scan.operands.length));
      }
      case 'xargs': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, {
          short: 'EILnPsda',
          optionalShort: 'eil',
          long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var', 'replace', 'eof', 'max-lines'],
          stopAtOperand: true,
        });
        const risky = scan.options.find((o) => ['p', 'o'].includes(o.name) || (o.long && ['interactive', 'open-tty', 'process-slot-var'].some((d) => d.startsWith(o.name))));
        if (risky) return highRisk('xargs', `option ${risky.long ? '--' : '-'}${risky.name} is not known to be safe`);
        if (scan.operands.length === 0) return readOnly('xargs', 'runs echo on its input');
        const inner = this.classifyArgv(argv.slice(argv.length - scan.operands.length), true);
        return { ...inner, reasons: inner.reasons.map((r) => `xargs → ${r}`) };
      }
      // ---- read-only with checks
      case 'cd':
      case 'pushd':
      case 'popd':
        return readOnly(name, 'changes the working directory of this command only');
      case 'set': {
        if (!literal) return needLiteral()!;
        for (let i = 0; i < literal.length; i++) {
          const a = literal[i]!;
          // Clusters like -eu, +x, and -o NAME / -euo NAME (o last, taking the next word).
          if (!/^[-+][euxvfC]*o?$/.test(a) || a.length < 2) {
            return highRisk('set', `${a} is not a known-safe shell option (set -k, set -a and positional changes can alter later commands)`);
          }
          if (a.endsWith('o')) {
            const opt = literal[++i];
            if (opt !== undefined && !SAFE_SHELL_OPTIONS.has(opt)) return highRisk('set', `shell option ${opt} is not known to be safe`);
          }
        }
        return readOnly('set', 'sets shell error-handling options');
      }
      case 'wait':
        if (!literal) return needLiteral()!;
        return literal.some((a) => a.startsWith('-') && a.includes('p')) ? highRisk('wait', '-p assigns a variable') : readOnly('wait');
      case 'printf': {
        const first = rest[0];
        if (first && (first.value === null || (first.value.startsWith('-v') && first.value !== '--'))) {
          return highRisk('printf', first.value === null ? 'the first argument is not a literal and could be -v (assigns a variable)' : '-v assigns a shell variable');
        }
        return readOnly('printf');
      }
      case 'test':
      case '[':
        return this.testBuiltin(name, rest);
      case 'find': {
        if (!literal) return needLiteral('checks find actions (-exec, -delete…)')!;
        const bad = literal.find((a) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(a));
        if (bad) return highRisk('find', `${bad} runs commands or changes files`);
        return readOnly('find');
      }
      case 'fd':
      case 'fdfind': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'edtEScop', long: ['exec', 'exec-batch'] });
        const bad = findShort(scan, 'xX') ?? findLong(scan, ['exec', 'exec-batch']);
        return bad ? highRisk(name, `${bad} runs commands`) : readOnly(name);
      }
      case 'rg': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'efgmACBMjrETtg', long: ['regexp', 'file', 'glob', 'type', 'max-count', 'replace'] });
        const bad = findLong(scan, ['pre', 'pre-glob', 'hostname-bin']);
        return bad ? highRisk('rg', `${bad} runs other programs`) : readOnly('rg');
      }
      case 'sort': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'kStTo', long: ['key', 'buffer-size', 'field-separator', 'temporary-directory', 'output', 'compress-program', 'files0-from', 'random-source', 'parallel', 'batch-size'] });
        const bad = findShort(scan, 'o') ?? findLong(scan, ['output', 'compress-program']);
        return bad ? highRisk('sort', `${bad} writes a file or runs a program`) : readOnly('sort');
      }
      case 'uniq': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars', 'group', 'all-repeated'] });
        return scan.operands.length > 1 ? highRisk('uniq', `writes its output to ${scan.operands[1]}`) : readOnly('uniq');
      }
      case 'sed': {
        if (!literal) return needLiteral('checks sed scripts')!;
        const scan = scanOptions(literal, { short: 'efl', optionalShort: 'i', long: ['expression', 'file', 'line-length'] });
        const inPlace = findShort(scan, 'i') ?? findLong(scan, ['in-place']);
        if (inPlace) return highRisk('sed', `${inPlace} edits files in place`);
        if (scan.options.some((o) => o.name === 'f' || (o.long && o.name !== '' && 'file'.startsWith(o.name)))) {
          return highRisk('sed', 'runs a script from a file, which cannot be checked');
        }
        const scripts = scan.options.filter((o) => o.name === 'e' || (o.long && o.name !== '' && 'expression'.startsWith(o.name))).map((o) => o.value ?? '');
        if (scripts.length === 0 && scan.operands[0] !== undefined) scripts.push(scan.operands[0]);
        if (scripts.some((s) => !sedScriptIsSafe(s))) return highRisk('sed', 'the script writes files (w, W, s///w) or runs commands (e, s///e), or could not be checked');
        return readOnly('sed');
      }
      case 'date': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'dfr', optionalShort: 'I', long: ['date', 'file', 'reference', 'iso-8601', 'rfc-3339'] });
        const bad = findShort(scan, 's') ?? findLong(scan, ['set']);
        if (bad || scan.operands.some((o) => !o.startsWith('+'))) return highRisk('date', 'sets the system clock');
        return readOnly('date');
      }
      case 'hostname':
        if (!literal) return needLiteral()!;
        return literal.every((a) => /^-[fsidAI]+$|^--(fqdn|short|ip-address|domain|all-fqdns|all-ip-addresses|long)$/.test(a))
          ? readOnly('hostname')
          : highRisk('hostname', 'can change the host name');
      case 'file': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'mfFeP', long: ['magic-file', 'files-from', 'separator', 'exclude', 'parameter'] });
        const bad = findShort(scan, 'C') ?? findLong(scan, ['compile']);
        return bad ? highRisk('file', `${bad} writes a compiled magic file`) : readOnly('file');
      }
      case 'tree': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'LPIoHT', long: ['filelimit', 'timefmt', 'charset', 'fromfile', 'sort', 'hintro', 'houtro'] });
        const bad = findShort(scan, 'oR') ?? findLong(scan, ['output']);
        return bad ? highRisk('tree', `${bad} writes files`) : readOnly('tree');
      }
      case 'git':
        return this.git(literal);
      case 'xxd': {
        if (!literal) return needLiteral()!;
        const scan = scanOptions(literal, { short: 'cglnosC', long: ['cols', 'groupsize', 'len', 'name', 'seek', 'offset'] });
        if (scan.options.some((o) => o.name === 'r' || o.name === 'revert')) return highRisk('xxd', '-r writes binary data (and can patch files)');
        return scan.operands.length > 1 ? highRisk('xxd', `writes its output to ${scan.operands[1]}`) : readOnly('xxd');
      }

      // ---- writers that can be low-risk inside the workspace
      case 'mkdir':
      case 'touch': {
        if (!literal) return highRisk(name, 'has arguments that are not plain literals, so the paths it creates cannot be checked');
        const scan =
          name === 'mkdir'
            ? scanOptions(literal, { short: 'm', long: ['mode', 'context'] })
            : scanOptions(literal, { short: 'drt', long: ['reference', 'date', 'time'] });
        if (scan.operands.length === 0) return readOnly(name, 'nothing to create');
        let v: Verdict = { risk: 'read-only', reasons: [], network: false, program: name };
        for (const target of scan.operands) v = merge(v, this.a.writeTarget(name, target, name === 'mkdir' ? 'creates a folder' : 'creates or touches a file'));
        return v;
      }
      default:
        break;
    }
    if (WRITERS.has(name)) return highRisk(name, 'changes files');
    return highRisk(name, 'is not a known read-only command');
  }

  private testBuiltin(name: string, rest: readonly WordInfo[]): Verdict {
    const args = name === '[' && rest.at(-1)?.value === ']' ? rest.slice(0, -1) : rest;
    if (args.some((a) => a.value === '-v' || a.value === '-R')) return highRisk(name, '-v evaluates array subscripts, which can run code');
    if (args.some((a) => !a.single)) return highRisk(name, 'unquoted expansions could split into operators such as -v');
    // Expansions may only sit where an operand is expected, never where test looks for an operator.
    const operatorAt = args.length === 2 ? [0] : args.length === 3 ? [1] : args.length >= 4 ? args.map((_, i) => i) : [];
    if (operatorAt.some((i) => args[i]?.value === null)) return highRisk(name, 'an expansion sits where test expects an operator');
    return readOnly(name);
  }

  private shell(name: string, argv: readonly WordInfo[]): Verdict {
    const rest = argv.slice(1);
    let script: WordInfo | undefined;
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i]!;
      const a = w.value;
      if (a === null) return highRisk(name, 'has arguments that are not plain literals');
      if (a === '-c') {
        script = rest[i + 1];
        break;
      }
      if (/^[-+][euxvfC]*o$/.test(a)) {
        const opt = rest[++i]?.value;
        if (opt === undefined || opt === null || !SAFE_SHELL_OPTIONS.has(opt)) return highRisk(name, `shell option ${opt ?? ''} is not known to be safe`);
        continue;
      }
      if (/^[-+][euxvfC]*c[euxvfC]*$/.test(a)) {
        script = rest[i + 1];
        break;
      }
      if (/^[-+][euxvfC]+$/.test(a) || a === '--norc' || a === '--noprofile' || a === '--posix') continue;
      if (a === '--version' && rest.length === 1) return readOnly(name, 'prints its version');
      return highRisk(name, a.startsWith('-') ? `option ${a} is not known to be safe (login/interactive shells run startup files)` : 'runs a script file');
    }
    if (!script) return highRisk(name, 'reads commands from its input');
    if (script.value === null) return highRisk(name, '-c with a string that is not a plain literal; the commands cannot be checked');
    if (this.depth + 1 > COMMAND_LIMITS.maxDepth) return highRisk(name, `nested shells deeper than ${COMMAND_LIMITS.maxDepth} levels`);
    this.nonSimple();
    const before = this.a.segments.length;
    const parsed = this.a.analyse(script.value, this.depth + 1);
    if (!parsed.ok) return highRisk(name, `-c string: ${parsed.reason}`);
    const inner = this.a.segments.slice(before);
    let v: Verdict = { risk: 'read-only', reasons: [], network: false, program: name };
    for (const s of inner) v = merge(v, { risk: s.risk, reasons: s.reasons.map((r) => `${name} -c → ${r}`), network: s.network, program: null });
    if (inner.length === 0) v.reasons.push(`${name} -c: empty script`);
    return { ...v, program: name };
  }

  private git(args: readonly string[] | null): Verdict {
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
        if (value[1] === 'work-tree') this.a.noteSensitivePath(at(v), 'read');
        continue;
      }
      if ((a === '--version' || a === '-v') && args.length === 1) return readOnly('git', 'prints its version');
      if (a === '-c' || a.startsWith('--config-env') || a.startsWith('-c')) return highRisk('git', '-c/--config-env can set any configuration, including programs git runs');
      if (a === '-p' || a === '--paginate') return highRisk('git', 'starts a pager, which can run commands');
      if (a.startsWith('--exec-path')) return highRisk('git', '--exec-path changes where git finds the programs it runs');
      return highRisk('git', `global option ${a} is not known to be safe`);
    }
    if (this.a.cwdChanges && !gitDir && (dir === null || !isAbsolute(dir))) {
      return highRisk('git', 'runs after changing directory, so the repository (and the programs its config names) cannot be checked');
    }
    // A repository whose config names programs makes even `git status` run them: such a repository always asks.
    const repo = this.a.gitRepository(dir, gitDir);
    if (repo.dangerous.length) {
      this.a.ask(`git would run programs this repository's config names (${repo.dangerous.slice(0, 4).join(', ')} in ${repo.configs.join(', ')})`);
    }
    if (gitDir) this.a.noteSensitivePath(gitDir, 'read');
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
        return this.gitConfig(rest, dir);
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
  private gitConfig(rest: readonly string[], dir: string | null): Verdict {
    const scan = scanOptions(rest, { short: 'f', long: ['file', 'blob', 'type', 'default', 'comment', 'value', 'url'] });
    const file = scan.options.find((o) => o.name === 'f' || (o.long && o.name !== '' && 'file'.startsWith(o.name) && o.name.length > 1));
    const scope = scan.options.find((o) => o.long && ['global', 'system', 'worktree', 'local'].includes(o.name));
    const READ_ACTIONS = ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'list', 'l', 'show-origin', 'show-scope', 'name-only', 'null', 'z', 'includes', 'no-includes', 'type', 'bool', 'int', 'bool-or-int', 'path', 'expiry-date', 'default', 'file', 'f', 'blob', 'global', 'system', 'local', 'worktree', 'fixed-value', 'all', 'regexp', 'value', 'url', 'show-names', 'no-show-names', 'no-type'];
    const actions = scan.options.filter((o) => !READ_ACTIONS.includes(o.name));
    const ops = scan.operands;
    const sub = ['get', 'list', 'set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(ops[0] ?? '') ? ops[0]! : null;
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
    const key = sub ? ops[1] : ops[0];
    if (file?.value) this.a.noteSensitivePath(dir ? joinRelative(dir, file.value) : file.value, 'write');
    if (key && DANGEROUS_GIT_KEY.test(key)) this.a.ask(`git config writes ${key}, a setting that makes git run a program later`);
    else if (!key || actions.length) this.a.ask('git config changes configuration in a way the classifier cannot read (it may name programs git runs)');
    if (scope && scope.name !== 'local' && scope.name !== 'worktree') this.a.ask(`git config --${scope.name} changes configuration outside this repository`);
    return highRisk('git', `git config ${key ? `writes ${key}` : 'changes configuration'}; configuration can name programs git runs`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// files whose content holds credentials

/** Larger files are not scanned (logs, data): their names and the redaction of output are what protect them. */
export const CREDENTIAL_SCAN_MAX_BYTES = 512 * 1024;
const contentScans = new Map<string, { key: string; names: string | null }>();

/**
 * The credential-named settings a file's text assigns a credential-looking value (`token`, `password`,
 * `client_secret`…), as a short list of names, or null. Judged with the redactor's own shapes (a value it would
 * redact), counted only where the line names a credential, so hashes and ids are not credentials.
 */
export function credentialContent(path: string): string | null {
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st || !st.isFile() || st.size === 0 || st.size > CREDENTIAL_SCAN_MAX_BYTES) return null;
  const key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  const cached = contentScans.get(path);
  if (cached?.key === key) return cached.names;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const names = new Set<string>();
  if (!text.includes('\0')) {
    for (const m of new SecretRedactor({ env: {} }).matches(text)) {
      const lineStart = text.lastIndexOf('\n', m.start - 1) + 1;
      if (CREDENTIAL_ENV_NAME.test(text.slice(lineStart, m.start))) names.add(m.name);
      if (names.size >= 4) break;
    }
  }
  const result = names.size ? [...names].join(', ') : null;
  if (contentScans.size > 2000) contentScans.clear();
  contentScans.set(path, { key, names: result });
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// package managers' own configuration

/** Keys a package manager's config may set without asking: output and bookkeeping, nothing that runs or fetches. */
export const HARMLESS_PACKAGE_KEYS: ReadonlySet<string> = new Set([
  'loglevel', 'color', 'progress', 'fund', 'audit', 'update-notifier', 'save-exact', 'save-prefix', 'init-author-name',
  'init-author-email', 'init-author-url', 'init-license', 'init-version', 'fetch-retries', 'fetch-timeout', 'unicode',
  'global.timeout', 'global.retries', 'global.no-color', 'global.disable-pip-version-check', 'global.quiet',
  'enabletelemetry', 'enableprogressbars', 'enablecolors', 'enablemessagenames', 'virtualenvs.in-project',
]);

/** Options of package managers' config commands that take a value (the value is not an operand). */
const PACKAGE_VALUE_OPTIONS = /^(--location|-L|--userconfig|--globalconfig|--workspace|-w|--prefix|--editor|--dir|-C|--cwd|--filter|-F)$/;

/**
 * When argv (after the program) writes the package manager's own configuration, the verb and the keys it sets;
 * else null. Options stand anywhere (as npm's, pip's and yarn's parsers take them); `k=v` and `k v` pairs both count.
 * Forms: `npm|pnpm config|c set|delete|rm|edit|fix …`, `npm|pnpm set|delete …`, `yarn config set|unset|delete …`,
 * `pip|pip3 config set|unset|edit …`, `poetry config K V|--unset K`, `bundle config [set] K V`, `go env -w|-u …`.
 */
export function packageConfigWrite(name: string, args: readonly string[] | null): { verb: string; keys: string[] } | null {
  if (!args) return null;
  const ops: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      ops.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a.length > 1) {
      flags.push(a);
      if (PACKAGE_VALUE_OPTIONS.test(a)) i++;
      continue;
    }
    ops.push(a);
  }
  const pairs = (list: readonly string[]): string[] => {
    const keys: string[] = [];
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      const eq = a.indexOf('=');
      if (eq > 0) keys.push(a.slice(0, eq));
      else {
        keys.push(a);
        i++;
      }
    }
    return keys;
  };
  const one = (list: readonly string[]) => list.map((a) => a.split('=')[0]!);
  const base = name.replace(/3$/, '');
  if (base === 'npm' || base === 'pnpm' || base === 'yarn') {
    const [first, second, ...rest] = ops;
    if ((first === 'config' || first === 'c') && second) {
      if (second === 'set') return { verb: 'config set', keys: pairs(rest) };
      if (['delete', 'rm', 'unset', 'del'].includes(second)) return { verb: `config ${second}`, keys: one(rest) };
      if (second === 'edit' || second === 'fix') return { verb: `config ${second}`, keys: [] };
      return null;
    }
    if (base !== 'yarn' && first === 'set' && second) return { verb: 'set', keys: pairs([second, ...rest]) };
    if (base !== 'yarn' && first === 'delete' && second) return { verb: 'delete', keys: one([second, ...rest]) };
    return null;
  }
  if (base === 'pip') {
    const [first, second, ...rest] = ops;
    if (first !== 'config') return null;
    if (second === 'set') return { verb: 'config set', keys: pairs(rest) };
    if (second === 'unset') return { verb: 'config unset', keys: one(rest) };
    if (second === 'edit') return { verb: 'config edit', keys: [] };
    return null;
  }
  if (base === 'poetry') {
    const [first, ...rest] = ops;
    if (first !== 'config') return null;
    if (flags.includes('--unset')) return { verb: 'config --unset', keys: one(rest) };
    return rest.length >= 2 ? { verb: 'config', keys: [rest[0]!] } : null;
  }
  if (base === 'bundle') {
    const [first, ...rest] = ops;
    if (first !== 'config') return null;
    const list = rest[0] === 'set' ? rest.slice(1) : rest[0] === 'unset' ? null : rest;
    if (list === null) return { verb: 'config unset', keys: one(rest.slice(1)) };
    return list.length >= 2 ? { verb: 'config', keys: [list[0]!] } : null;
  }
  if (base === 'go') {
    if (ops[0] !== 'env') return null;
    const w = args.findIndex((a) => a === '-w' || a === '-u');
    if (w < 0) return null;
    return { verb: `env ${args[w]}`, keys: one(ops.slice(1)) };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// git repositories and their config

/** Settings that make git run a program (now or later), or load other configuration that could. */
export const DANGEROUS_GIT_KEY =
  /^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|pager\..+|alias\..+|include\.path|includeif\..+|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|mergetool\..+\.cmd|difftool\..+\.cmd|credential\.helper|credential\..+\.helper|gpg\.program|gpg\..+\.program|interactive\.difffilter|remote\..+\.(uploadpack|receivepack|vcs)|uploadpack\.packobjectshook|protocol\..+\.allow|protocol\.allow|submodule\..+\.update|man\..+\.cmd|browser\..+\.cmd|web\.browser|sendemail\..+|core\.attributesfile|ssh\.variant)$/i;

/** `section.subsection.key` names set in a git config text (lower-case section and key; subsections kept). */
export function gitConfigKeys(text: string): string[] {
  const keys: string[] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (head) {
      section = head[2] !== undefined ? `${head[1]!.toLowerCase()}.${head[2]}` : head[1]!.toLowerCase();
      line = head[3]!.trim();
      if (!line) continue;
    }
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(=|$|\s)/.exec(line);
    if (key && section) keys.push(`${section}.${key[1]!.toLowerCase()}`);
  }
  return keys;
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

// ---------------------------------------------------------------------------------------------------------------
// Readers that are read-only only with the right arguments

/**
 * Why an awk invocation is not read-only, or null: its program (given inline) must have no system(), no pipes to or
 * from commands, no output redirection in print/printf, no extension loading; options that run files or write
 * (-f, -i, -l, -o, -p, -d, -E, -D) are refused.
 */
export function awkUnsafe(args: readonly string[]): string | null {
  const programs: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    if (a === '-F' || a === '-v') {
      i++;
      continue;
    }
    if (/^-[Fv]./.test(a) || /^--(field-separator|assign)=/.test(a)) continue;
    if (a === '-e' || a === '--source') {
      programs.push(args[++i] ?? '');
      continue;
    }
    if (/^--source=/.test(a)) {
      programs.push(a.slice(9));
      continue;
    }
    if (/^-(b|c|P|M|S|s|n|r|t|N|g|h|V|U)$|^--(characters-as-bytes|traditional|posix|bignum|sandbox|no-optimize|re-interval|lint|version|help|copyright|use-lc-numeric|non-decimal-data)$/.test(a)) continue;
    return `option ${a} can run a program file, load an extension or write a file`;
  }
  if (programs.length === 0) {
    const program = args[i];
    if (program === undefined) return 'no program given';
    programs.push(program);
  }
  for (const program of programs) {
    const why = awkProgramUnsafe(program);
    if (why) return why;
  }
  return null;
}

function awkProgramUnsafe(program: string): string | null {
  // Strings and regular expression literals cannot run anything: blank them before looking.
  const code = program
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/(^|[~(,{;!&|\n]|\bin\b)(\s*)\/(?:[^/\\\n[]|\\.|\[(?:[^\]\\]|\\.)*\])*\//g, '$1$2//');
  if (/\bsystem\s*\(/.test(code)) return 'the awk program calls system(), which runs commands';
  if (/@\s*(load|include|namespace)/.test(code)) return 'the awk program loads other code (@load, @include)';
  if (/\|&|(^|[^|])\|(?!\|)/.test(code.replace(/\|\|/g, ''))) return 'the awk program pipes to or from a command';
  for (const m of code.matchAll(/\bprintf?\b([^;{}\n]*)/g)) {
    if (/>/.test(m[1]!)) return 'the awk program redirects print output to a file';
  }
  if (/\b(PROCINFO|ENVIRON)\s*\[[^\]]*\]\s*=(?!=)/.test(code)) return 'the awk program changes its environment or interpreter settings';
  return null;
}

/** `less` with display options only (no log file, no tags, no initial commands) and files: prints them. */
export function lessIsReadOnly(args: readonly string[]): boolean {
  return args.every((a) => (!a.startsWith('-') && !a.startsWith('+')) || /^-[FRrSXNniIMmsq~eEQKLfWwaBcCdgGJuUV]+$/.test(a) || /^--(quit-if-one-screen|RAW-CONTROL-CHARS|raw-control-chars|chop-long-lines|no-init|LINE-NUMBERS|line-numbers|ignore-case|IGNORE-CASE|LONG-PROMPT|squeeze-blank-lines|quit-at-eof|QUIT-AT-EOF|quiet|silent|no-lessopen|force|no-keypad|tilde)$/.test(a));
}

/** `man` showing pages (by name and section, or apropos/whatis): no pager option, no local files, no config. */
export function manIsReadOnly(args: readonly string[]): boolean {
  return args.length > 0 && args.every((a) => /^-[kfawW]+$/.test(a) || /^--(apropos|whatis|all|where|where-cat|path)$/.test(a) || /^[A-Za-z0-9_.:+@-]+$/.test(a) && !a.startsWith('-') && !a.includes('..'));
}

/** `tsc --noEmit`: type-checks; refused with options that build, watch, trace or write build info. */
export function tscIsReadOnly(args: readonly string[]): boolean {
  return !args.some((a) => /^--?(b|build|w|watch|generateTrace|generateCpuProfile|init|tsBuildInfoFile|incremental|composite|plugins?|locale)(=.*)?$/i.test(a));
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/**
 * The path a word most likely names, for the sensitive-path check only (best effort): its value when it is a plain
 * literal, else its text with quotes removed and a leading ~, $HOME or ${HOME} expanded, when that is a plain path.
 */
function guessPath(w: WordInfo): string | null {
  if (w.value !== null) return w.value;
  // ~ is left for the path guard, which expands it with the home it was given.
  const text = w.text.replace(/["']/g, '').replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, '~');
  return /^[\w./@%+=:,~-]+$/.test(text) && (text.includes('/') || text === '~') ? text : null;
}

function envName(name: string, bare: boolean): Verdict {
  if (SAFE_ENV.test(name)) return { risk: 'read-only', reasons: [], network: false, program: null };
  if (KNOWN_DANGEROUS_ENV.test(name)) return highRisk(null, `sets ${name}, which can make programs run other code or load other files`);
  if (PROXY_ENV.test(name)) return highRisk(null, `sets ${name}, which redirects network traffic`, true);
  // Lower-case names are shell-local by convention; programs do not read them (the proxy variables aside).
  if (/^[a-z_][a-z0-9_]*$/.test(name)) return { risk: 'read-only', reasons: bare ? [`assigns shell variable ${name}`] : [], network: false, program: null };
  return highRisk(null, `sets environment variable ${name}; only a few well-known harmless variables are allowed`);
}

function envAssignment(assign: ShNode, bare: boolean): Verdict {
  const name = (assign.Name as ShNode | null)?.Value;
  if (typeof name !== 'string' || name === '') return highRisk(null, 'assignment without a plain name');
  return envName(name, bare);
}

function nodeType(node: unknown): string | null {
  if (node === null || node === undefined || typeof node !== 'object') return null;
  try {
    return syntax.NodeType(node);
  } catch {
    return null;
  }
}

function asArray(value: unknown): ShNode[] {
  return Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as ShNode[]) : [];
}

const SKIPPED_FIELDS = new Set(['__internal_object__', '$type', 'Pos', 'End']);

/**
 * Every node or struct below `node`, found by reflection over its fields. syntax.Walk is not used: it skips some
 * fields (the offset and length of `${x:off:len}`), and a missed `$(…)` there would go unclassified.
 */
function children(node: ShNode): ShNode[] {
  const out: ShNode[] = [];
  for (const key of Object.getOwnPropertyNames(node)) {
    if (SKIPPED_FIELDS.has(key)) continue;
    const value = (node as Record<string, unknown>)[key];
    if (value === null || value === undefined || typeof value !== 'object') continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item === null || typeof item !== 'object') continue;
      if (typeof (item as { IsValid?: unknown }).IsValid === 'function') continue; // a position
      out.push(item as ShNode);
    }
  }
  return out;
}

/** True when an arithmetic expression (or subscript) is made only of numbers and operators. */
function constantArithmetic(node: ShNode | null | undefined): boolean {
  if (!node) return true;
  const t = nodeType(node);
  if (t === 'Lit') return /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$/.test(String(node.Value));
  if (t !== null && !['Word', 'BinaryArithm', 'UnaryArithm', 'ParenArithm', 'ArithmExp', 'ArithmCmd', 'CStyleLoop'].includes(t)) return false;
  return children(node).every((c) => constantArithmetic(c));
}

function isAllIndex(index: ShNode | null | undefined): boolean {
  if (!index) return false;
  const parts = asArray(index.Parts);
  return parts.length === 1 && nodeType(parts[0]) === 'Lit' && ['@', '*'].includes(String(parts[0]!.Value));
}

function parseErrorText(err: unknown): string {
  if (err && typeof err === 'object' && typeof (err as { Error?: unknown }).Error === 'function') {
    try {
      return String((err as { Error(): unknown }).Error()).replace(/^command:/, '').slice(0, 200);
    } catch {
      // fall through
    }
  }
  return err instanceof Error ? err.message.slice(0, 200) : 'syntax error';
}

/** Characters that hide what a command does: C0/C1 controls (except tab and newline), bidi overrides, zero-widths. */
function invisibleCharacter(s: string): string | null {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0x09 || c === 0x0a) continue;
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) return `a control character (U+${c.toString(16).padStart(4, '0').toUpperCase()})`;
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c) {
      return `a bidirectional override (U+${c.toString(16).toUpperCase()})`;
    }
    if (
      (c >= 0x200b && c <= 0x200d) ||
      (c >= 0x2060 && c <= 0x2064) ||
      (c >= 0xfe00 && c <= 0xfe0f) ||
      (c >= 0xe0000 && c <= 0xe007f) ||
      [0xfeff, 0x00ad, 0x180e, 0x115f, 0x1160, 0x3164, 0xffa0, 0x034f].includes(c)
    ) {
      return `an invisible character (U+${c.toString(16).toUpperCase()})`;
    }
  }
  return null;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
