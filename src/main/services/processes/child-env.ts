/**
 * The environment a command runs with: Deskhand's own, minus anything credential-named, so a command (or whatever it
 * prints) cannot hand the model an API key or session token that merely sits in the app's environment.
 */

/**
 * Names that look like they hold a credential, any case: these words anywhere in the name (over-broad on purpose:
 * KEYBOARD_LAYOUT goes too), a `PASS`/`PASSPHRASE` word (DB_PASS), a `…_PWD` suffix (MYSQL_PWD; PWD itself is the
 * working folder and stays), a `DSN` (SENTRY_DSN carries a key), and every cloud-account variable of AWS.
 */
export const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|(^|_)PASS(PHRASE)?($|_)|.+_PWD$|(^|_)DSN$|^AWS_/i;
/** A value that is a URL with a password in it (`postgres://app:hunter2@db/x`, an authenticated proxy): dropped whatever its name. */
export const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;
/** Provider variables are dropped whatever their suffix (ANTHROPIC_BASE_URL can carry a key in its userinfo). */
export const PROVIDER_PREFIX = /^(ANTHROPIC|OPENAI)_/i;
/**
 * Variables that change what bash itself runs before the command: exported functions (BASH_FUNC_ls%%=() { … } would
 * replace `ls` and defeat the classifier), startup files read by non-interactive shells, and less's input
 * preprocessors (with them, `less -F file` would run a program on the file).
 */
export const SHELL_HIJACK = /^(BASH_FUNC_.*|BASH_ENV|ENV|LESSOPEN|LESSCLOSE)$/;

export function isDroppedEnvName(name: string): boolean {
  return CREDENTIAL_NAME.test(name) || PROVIDER_PREFIX.test(name) || SHELL_HIJACK.test(name);
}

/**
 * PATH without empty, `.` or relative entries: with those, a file named `ls` in the folder a command runs in would be
 * run instead of the real `ls` the classifier judged read-only.
 */
export function absolutePath(path: string): string {
  return path
    .split(':')
    .filter((dir) => dir.startsWith('/'))
    .join(':');
}

/**
 * A copy of `source` without credential-named, provider and shell-hijacking variables (and values that are URLs with a
 * password), with an absolute PATH. Only the launcher (launcher.ts) applies it to a process.
 */
export function childEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isDroppedEnvName(name) || name === '__proto__' || URL_WITH_PASSWORD.test(value)) continue;
    env[name] = name === 'PATH' ? absolutePath(value) : value;
  }
  return env;
}
