/**
 * The ONE list of sensitive paths. The path guard (every file tool and every literal path of a command), the OS
 * sandbox (what commands cannot see) and the search tools (what grep and find skip) all read it, so they cannot
 * disagree. Pure data plus name matching: no Node, so every layer may import it.
 *
 * Kinds:
 * - `credentials`: files that hold secrets. Reads and writes ask under every policy; the sandbox hides them; searches
 *   skip them.
 * - `vcs`: VCS hooks and config (they can make git run programs). Reads and writes ask.
 * - `startup`: shell and session start-up files (they run programs the next time a shell starts). Reads and writes ask.
 * - `code-runner`: project files that make tools run code later (Makefile, CI configs, package-manager rc and hook
 *   files, `.pth`, `.cargo/config*`, editor tasks). Creating or changing one asks under every policy, through any
 *   tool; reading one is ordinary.
 */

export type SensitiveKind = 'credentials' | 'vcs' | 'startup' | 'code-runner' | 'deskhand-data';

/**
 * Relative to the home folder: credentials of SSH, clouds, registries, databases, browsers, shells' history and
 * other agents. Hidden (emptied) inside the sandbox; reads and writes ask.
 */
export const HOME_CREDENTIALS: readonly string[] = [
  // SSH, GPG, password stores, keyrings
  '.ssh', '.gnupg', '.password-store', '.local/share/keyrings', '.config/op', '.config/age', '.config/sops',
  'Library/Application Support/sops', '.sops', '.age',
  // clouds and cluster tools
  '.aws', '.config/gcloud', '.azure', '.kube', '.oci', '.config/doctl', '.fly', '.config/heroku', '.heroku',
  '.s3cfg', '.boto', '.config/rclone', '.terraform.d/credentials.tfrc.json', '.terraformrc', '.vault-token',
  '.config/netlify', '.vercel', '.wrangler', '.config/ngrok', '.ngrok2',
  // registries, package managers and VCS hosts
  '.netrc', '_netrc', '.npmrc', '.pypirc', '.yarnrc.yml', '.git-credentials', '.config/gh', '.config/hub',
  '.cargo/credentials', '.cargo/credentials.toml', '.gem/credentials', '.m2/settings.xml', '.m2/settings-security.xml',
  '.gradle/gradle.properties', '.nuget/NuGet/NuGet.Config', '.config/pip/pip.conf', '.pip/pip.conf',
  // containers
  '.docker/config.json', '.config/containers/auth.json', '.dockercfg',
  // databases
  '.pgpass', '.my.cnf', '.mylogin.cnf', '.config/redis',
  // browser profiles (cookies, saved passwords)
  '.mozilla', '.thunderbird', '.config/google-chrome', '.config/chromium', '.config/BraveSoftware',
  '.config/microsoft-edge', '.config/vivaldi', '.config/opera', 'snap/chromium', 'snap/firefox',
  'Library/Application Support/Google/Chrome', 'Library/Application Support/Firefox', 'Library/Cookies',
  'Library/Keychains',
  // shell and REPL history (commands typed with secrets in them)
  '.bash_history', '.zsh_history', '.histfile', '.sh_history', '.local/share/fish/fish_history', '.python_history',
  '.node_repl_history', '.psql_history', '.mysql_history', '.sqlite_history', '.lesshst', '.rediscli_history',
  '.irb_history',
  // other agents' and editors' credential files
  '.claude/.credentials.json', '.claude.json', '.codex/auth.json', '.config/github-copilot', '.gemini/oauth_creds.json',
  '.config/gemini', '.aider', '.continue/config.json', '.config/Code/User/globalStorage',
];

/** Folder names that hold credentials wherever they are (a copy of a home folder, a backup). */
export const CREDENTIAL_DIR_NAMES: readonly string[] = ['.ssh', '.gnupg', '.aws', '.password-store', '.kube', '.azure'];

/**
 * Secret-bearing files by name, anywhere (at any depth of a workspace): globs on the file name (`*` only), and the
 * literal a search pattern must contain to ask grep/find for them explicitly.
 */
export const SECRET_FILE_RULES: readonly { glob: string; token: string }[] = [
  { glob: '.env', token: '.env' },
  { glob: '.env.*', token: '.env' },
  { glob: '*.env', token: '.env' },
  { glob: '*.pem', token: '.pem' },
  { glob: '*.key', token: '.key' },
  { glob: '*.p12', token: '.p12' },
  { glob: '*.pfx', token: '.pfx' },
  { glob: 'id_rsa*', token: 'id_rsa' },
  { glob: 'id_dsa*', token: 'id_dsa' },
  { glob: 'id_ecdsa*', token: 'id_ecdsa' },
  { glob: 'id_ed25519*', token: 'id_ed25519' },
  { glob: '.npmrc', token: '.npmrc' },
  { glob: '.pypirc', token: '.pypirc' },
  { glob: '.netrc', token: '.netrc' },
  { glob: '_netrc', token: 'netrc' },
  { glob: '.git-credentials', token: 'credentials' },
  { glob: 'credentials', token: 'credentials' },
  { glob: 'credentials.*', token: 'credentials' },
  { glob: '.envrc', token: '.envrc' },
  { glob: '*.jks', token: '.jks' },
  { glob: '*.keystore', token: 'keystore' },
  { glob: '*.kdbx', token: '.kdbx' },
  { glob: '.htpasswd', token: 'htpasswd' },
  { glob: '.pgpass', token: 'pgpass' },
  { glob: '.my.cnf', token: '.my.cnf' },
  { glob: '.vault-token', token: 'vault-token' },
  { glob: '.dockercfg', token: 'dockercfg' },
  { glob: 'secrets.*', token: 'secrets' },
  { glob: '*.tfstate', token: '.tfstate' },
  { glob: '*.tfstate.backup', token: '.tfstate' },
  { glob: '*.tfvars', token: '.tfvars' },
  { glob: '*.agekey', token: '.agekey' },
  { glob: '.sops.yaml', token: 'sops' },
];

/** Anywhere: shell and tool start-up files (they run code the next time a shell or tool starts). */
export const STARTUP_NAMES: readonly string[] = [
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin',
  '.zlogout', '.cshrc', '.tcshrc', '.login', '.logout', '.kshrc', '.mkshrc', '.envrc', '.inputrc', '.xprofile',
  '.xinitrc', '.xsessionrc', '.pam_environment',
];
/** Relative to the home folder: start-up and autostart locations. */
export const HOME_STARTUP: readonly string[] = [
  '.config/fish', '.config/autostart', '.config/systemd/user', '.config/environment.d', 'Library/LaunchAgents', '.oh-my-zsh/custom',
];
/** Absolute system start-up locations. */
export const SYSTEM_STARTUP: readonly string[] = [
  '/etc/profile', '/etc/profile.d', '/etc/bash.bashrc', '/etc/bashrc', '/etc/zsh', '/etc/zshrc', '/etc/zshenv', '/etc/environment', '/etc/xdg/autostart',
];
/** Relative to the home folder: global VCS config. */
export const HOME_VCS: readonly string[] = ['.gitconfig', '.config/git', '.hgrc', '.config/hg'];

/**
 * Files that make tools run code later, by name (anywhere) or by the folders they sit in (`dir/name` suffix; `*`
 * matches one name). Writes ask under every policy; reads are ordinary.
 */
export const CODE_RUNNER_RULES: readonly { glob: string; what: string }[] = [
  { glob: 'Makefile', what: 'a Makefile (make runs its recipes)' },
  { glob: 'makefile', what: 'a Makefile (make runs its recipes)' },
  { glob: 'GNUmakefile', what: 'a Makefile (make runs its recipes)' },
  { glob: '*.mk', what: 'a make include file' },
  { glob: '.vscode/tasks.json', what: 'editor tasks (the editor runs them)' },
  { glob: '.vscode/launch.json', what: 'editor launch configurations (the editor runs them)' },
  { glob: '.vscode/settings.json', what: 'editor settings (they can name programs the editor runs)' },
  { glob: '.npmrc', what: 'npm configuration (it can name scripts and programs npm runs)' },
  { glob: '.yarnrc', what: 'yarn configuration (it can name programs yarn runs)' },
  { glob: '.yarnrc.yml', what: 'yarn configuration (it can name programs yarn runs)' },
  { glob: '.pnpmfile.cjs', what: 'a pnpm hook file (pnpm runs it)' },
  { glob: 'pnpmfile.js', what: 'a pnpm hook file (pnpm runs it)' },
  { glob: 'bunfig.toml', what: 'bun configuration (it can preload code)' },
  { glob: 'pip.conf', what: 'pip configuration' },
  { glob: '*.pth', what: 'a Python .pth file (Python runs its import lines at every start)' },
  { glob: 'sitecustomize.py', what: 'sitecustomize.py (Python runs it at every start)' },
  { glob: 'usercustomize.py', what: 'usercustomize.py (Python runs it at every start)' },
  { glob: '.cargo/config', what: 'cargo configuration (it can name programs cargo runs)' },
  { glob: '.cargo/config.toml', what: 'cargo configuration (it can name programs cargo runs)' },
  { glob: '.github/workflows/*', what: 'a CI workflow (CI runs it)' },
  { glob: '.gitlab-ci.yml', what: 'a CI configuration (CI runs it)' },
  { glob: '.circleci/config.yml', what: 'a CI configuration (CI runs it)' },
  { glob: '.travis.yml', what: 'a CI configuration (CI runs it)' },
  { glob: 'Jenkinsfile', what: 'a CI configuration (CI runs it)' },
  { glob: 'azure-pipelines.yml', what: 'a CI configuration (CI runs it)' },
  { glob: 'bitbucket-pipelines.yml', what: 'a CI configuration (CI runs it)' },
  { glob: '.drone.yml', what: 'a CI configuration (CI runs it)' },
  { glob: '.buildkite/*', what: 'a CI configuration (CI runs it)' },
  { glob: '.pre-commit-config.yaml', what: 'pre-commit hooks (git runs them)' },
  { glob: 'lefthook.yml', what: 'git hooks (git runs them)' },
  { glob: '.githooks/*', what: 'git hooks (git runs them)' },
  { glob: '.husky/*', what: 'husky git hooks (git runs them)' },
  { glob: '.devcontainer/devcontainer.json', what: 'a dev container definition (it runs commands)' },
  { glob: '.deskhand/mcp.json', what: "a project MCP file (Deskhand runs the servers it names once the person approved it)" },
  // Instruction files steer every later conversation in their folder (names match in any case: a case-insensitive
  // file system loads `agents.md` as AGENTS.md).
  { glob: 'AGENTS.md', what: 'an instruction file (every later conversation in the folder follows it)' },
  { glob: 'CLAUDE.md', what: 'an instruction file (every later conversation in the folder follows it)' },
  { glob: '.deskhand/skills/*/SKILL.md', what: 'a workspace skill (the agent follows it when it applies)' },
];

/**
 * Package manifests and build files whose scripts a package manager or build tool runs later (`npm install` runs
 * package.json's lifecycle scripts, `cargo build` runs build.rs, `pip install .` runs setup.py…). Ordinary to read and,
 * under the conversation's policy, to write; but a change to one is never counted as one that can simply be taken
 * back (docs/rewind.md "Reversibility"): the approvals' confined rule does not let it run unasked, and the card says
 * why. Deliberately not in CODE_RUNNER_RULES: editing a manifest is everyday work, which asking under every policy
 * would turn into noise.
 */
export const PACKAGE_SCRIPT_RULES: readonly { glob: string; what: string }[] = [
  { glob: 'package.json', what: 'package.json (npm and yarn run its scripts)' },
  { glob: 'pyproject.toml', what: 'pyproject.toml (Python build tools run what it names)' },
  { glob: 'setup.py', what: 'setup.py (pip runs it)' },
  { glob: 'setup.cfg', what: 'setup.cfg (Python build tools read commands from it)' },
  { glob: 'Cargo.toml', what: 'Cargo.toml (cargo runs the build scripts it names)' },
  { glob: 'build.rs', what: 'build.rs (cargo runs it at every build)' },
  { glob: 'Gemfile', what: 'a Gemfile (bundler runs it as Ruby)' },
  { glob: 'Rakefile', what: 'a Rakefile (rake runs it)' },
  { glob: 'composer.json', what: 'composer.json (composer runs its scripts)' },
  { glob: 'build.gradle', what: 'a Gradle build file (gradle runs it)' },
  { glob: 'build.gradle.kts', what: 'a Gradle build file (gradle runs it)' },
  { glob: 'pom.xml', what: 'pom.xml (maven runs the plugins it names)' },
  { glob: 'justfile', what: 'a justfile (just runs its recipes)' },
  { glob: 'Taskfile.yml', what: 'a Taskfile (task runs its commands)' },
  { glob: 'tox.ini', what: 'tox.ini (tox runs its commands)' },
  { glob: 'noxfile.py', what: 'noxfile.py (nox runs it)' },
];

/**
 * Host paths of Unix sockets and per-user runtime folders (D-Bus session and system buses, the keyring, ssh-agent,
 * docker, X11, tmux…): hidden inside the sandbox. Host `/tmp` (X11, tmux and many agents' sockets) is a private
 * tmpfs there too; sockets named by the environment and any other socket under /run are found when a plan is made.
 */
export const HOST_SOCKET_DIRS: readonly string[] = [
  '/run/user', '/run/dbus', '/var/run/dbus', '/run/docker', '/run/containerd', '/run/podman', '/run/snapd', '/run/systemd/private',
  '/var/lib/docker', '/run/screen', '/var/run/screen',
];

/** Environment variables that name a host socket or display; the sandbox hides their sockets and unsets them. */
export const SOCKET_ENV = [
  'DBUS_SESSION_BUS_ADDRESS', 'DBUS_SYSTEM_BUS_ADDRESS', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'DISPLAY', 'WAYLAND_DISPLAY',
  'XAUTHORITY', 'TMUX', 'TMUX_PANE', 'STY', 'DOCKER_HOST', 'GNOME_KEYRING_CONTROL', 'XDG_RUNTIME_DIR', 'KRB5CCNAME',
  'SWAYSOCK', 'I3SOCK', 'PULSE_SERVER', 'DESKHAND_DBUS_ADDRESS',
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Name matching (shared by the path guard, the sandbox walk and the search filters)

/** A glob with `*` only (no `/` inside a name) as a case-insensitive regular expression for one name. */
export function nameGlob(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${body}$`, 'i');
}

const SECRET_RES = SECRET_FILE_RULES.map((r) => ({ ...r, re: nameGlob(r.glob) }));

/** The secret-file rules a file name falls under (empty when the name is ordinary). */
export function secretFileRules(name: string): readonly { glob: string; token: string }[] {
  return SECRET_RES.filter((r) => r.re.test(name));
}

export function isSecretFileName(name: string): boolean {
  return SECRET_RES.some((r) => r.re.test(name));
}

const CODE_RES = CODE_RUNNER_RULES.map((r) => ({ ...r, parts: r.glob.split('/').map(nameGlob) }));

/** What a code-running file is, judged from the last components of a path (split on `/` or `\`), or null. */
export function codeRunnerMatch(parts: readonly string[]): string | null {
  for (const r of CODE_RES) {
    if (parts.length < r.parts.length) continue;
    const tail = parts.slice(parts.length - r.parts.length);
    if (r.parts.every((re, i) => re.test(tail[i]!))) return r.what;
  }
  return null;
}

const PACKAGE_RES = PACKAGE_SCRIPT_RULES.map((r) => ({ ...r, re: nameGlob(r.glob) }));

/** What package manifest or build file a path names (by its last component, `/` or `\\` separated), or null. */
export function packageScriptMatch(path: string): string | null {
  const name = path.split(/[\\/]/).pop() ?? '';
  return PACKAGE_RES.find((r) => r.re.test(name))?.what ?? null;
}
