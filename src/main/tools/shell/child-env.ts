/**
 * The environment a command runs with: Deskhand's own, minus anything credential-named, so a command (or whatever it
 * prints) cannot hand the model an API key or session token that merely sits in the app's environment.
 */

/** Names that look like they hold a credential. Matched anywhere in the name, any case. */
export const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;
/** Provider variables are dropped whatever their suffix (ANTHROPIC_BASE_URL can carry a key in its userinfo). */
export const PROVIDER_PREFIX = /^(ANTHROPIC|OPENAI)_/i;
/**
 * Variables that change what bash itself runs before the command: exported functions (BASH_FUNC_ls%%=() { … } would
 * replace `ls` and defeat the classifier) and startup files read by non-interactive shells.
 */
export const SHELL_HIJACK = /^(BASH_FUNC_.*|BASH_ENV|ENV)$/;

export function isDroppedEnvName(name: string): boolean {
  return CREDENTIAL_NAME.test(name) || PROVIDER_PREFIX.test(name) || SHELL_HIJACK.test(name);
}

/** A copy of `source` without credential-named, provider and shell-hijacking variables. */
export function childEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isDroppedEnvName(name)) continue;
    env[name] = value;
  }
  return env;
}
