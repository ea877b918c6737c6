/**
 * The classifier's tables: which programs are pure readers, elevate, page, edit, are other shells, contact other
 * machines, interpret code, manage packages, print only their version, write files or run code; which environment
 * variables and shell options are harmless.
 */

/** Programs whose arguments cannot turn them into writers or executors: any arguments, even from `xargs` input. */
export const PURE_READERS = new Set([
  'cat', 'head', 'tail', 'wc', 'ls', 'dir', 'vdir', 'grep', 'egrep', 'fgrep', 'echo', 'pwd', 'stat', 'du', 'df',
  'cut', 'tr', 'diff', 'cmp', 'basename', 'dirname', 'realpath', 'readlink', 'which', 'type', 'jq', 'printenv', 'nl',
  'tac', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'strings', 'od',
  'hexdump', 'column', 'uname', 'whoami', 'id', 'groups', 'true', 'false', ':', 'sleep', 'seq', 'expr', 'paste',
  'join', 'comm', 'fold', 'fmt', 'rev', 'expand', 'unexpand', 'yes', 'nproc', 'arch', 'tty', 'uptime', 'locale',
  'getconf', 'free', 'ps', 'exit', 'return', 'break', 'continue', 'shift', 'base64', 'base32', 'basenc', 'zcat',
  'bzcat', 'xzcat', 'zstdcat', 'lsof',
]);

/** Directories whose programs may be named by absolute path (`/usr/bin/ls` is `ls`). */
export const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/opt/homebrew/bin']);

export const ELEVATION = new Set(['sudo', 'doas', 'su', 'pkexec', 'runuser', 'run0']);
export const PAGERS = new Set(['less', 'more', 'most', 'pg', 'man', 'info']);
export const EDITORS = new Set(['vi', 'vim', 'nvim', 'view', 'nano', 'pico', 'emacs', 'ed', 'ex', 'code']);
export const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
export const OTHER_SHELLS = new Set(['zsh', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'ash', 'elvish', 'nu', 'xonsh']);
export const POSIX_SHELLS = new Set(['sh', 'bash', 'dash', 'rbash']);
export const NETWORK_CLIENTS = new Set([
  'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'rsync', 'ftp', 'tftp', 'telnet', 'http',
  'https', 'xh', 'aria2c', 'ping', 'ping6', 'dig', 'nslookup', 'host', 'whois', 'traceroute', 'mosh', 'lftp', 'gh',
  'npx', 'pnpx', 'bunx', 'uvx', 'openssl',
]);
export const INTERPRETERS = new Set([
  'python', 'python2', 'python3', 'node', 'nodejs', 'perl', 'ruby', 'php', 'lua', 'luajit', 'Rscript', 'R',
  'osascript', 'pwsh', 'powershell', 'tclsh', 'wish', 'java', 'jshell', 'irb', 'ghci', 'scala', 'kotlin', 'swift',
  'julia', 'groovy', 'deno', 'bun', 'tsx', 'ts-node',
]);
/** Package managers and build tools: high-risk (they run project scripts); network for the listed subcommands. */
export const PACKAGE_MANAGERS: Record<string, ReadonlySet<string>> = {
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
export const VERSION_ARGS: Record<string, readonly string[]> = {
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
export const WRITERS = new Set([
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'chmod', 'chown', 'chgrp', 'dd', 'truncate', 'shred', 'install', 'tar', 'zip',
  'unzip', 'gzip', 'gunzip', 'bzip2', 'xz', 'unxz', 'zstd', '7z', 'patch', 'mkfifo', 'mknod', 'split', 'csplit',
  'tee', 'sponge', 'rsync', 'unlink', 'link', 'mktemp',
]);
export const CODE_RUNNERS: Record<string, string> = {
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
export const SAFE_ENV = /^(LC_[A-Z_]+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES|TERM|COLORTERM|GREP_COLORS?|LS_COLORS|TIME_STYLE|POSIXLY_CORRECT|IFS)$/;
/** Names known to make programs run other code or load other files; named in the reason. */
export const KNOWN_DANGEROUS_ENV =
  /^(PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|LESSOPEN|LESSCLOSE|LESS|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PATH|PROMPT_COMMAND|GIT_\w+|EDITOR|VISUAL|SHELLOPTS|BASHOPTS|NODE_OPTIONS|NODE_PATH|PYTHON\w*|PERL5\w*|PERLLIB|RUBYOPT|RUBYLIB|HOME|XDG_CONFIG_HOME|RIPGREP_CONFIG_PATH|GCONV_PATH|LOCPATH|CDPATH|GLOBIGNORE|SHELL|TAR_OPTIONS|JQ_LIB|AWKPATH|BROWSER|SSH_ASKPASS|SUDO_ASKPASS|GLIBC_TUNABLES|MALLOC_\w+)$/;
export const SAFE_SHELL_OPTIONS = new Set(['pipefail', 'errexit', 'nounset', 'xtrace', 'verbose', 'noglob', 'noclobber']);
export const PROXY_ENV = /^(http|https|ftp|all|no)_proxy$/i;
