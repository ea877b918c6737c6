/**
 * Secret-bearing files that searches skip: `find` hides them unless the pattern names them, `grep` never searches
 * them. (Reading one on purpose with read_file is allowed; redaction happens in the runtime.)
 */
import { basename } from 'node:path';
import { expandBraces, globToRegExp } from './glob';

interface SensitiveRule {
  /** A ripgrep/gitignore glob on the file name. */
  glob: string;
  /** The literal a search pattern must contain to ask for these files explicitly. */
  token: string;
}

const RULES: SensitiveRule[] = [
  { glob: '.env', token: '.env' },
  { glob: '.env.*', token: '.env' },
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
  { glob: '.dockercfg', token: 'dockercfg' },
  { glob: 'secrets.*', token: 'secrets' },
  { glob: '*.tfstate', token: '.tfstate' },
  { glob: '*.tfstate.backup', token: '.tfstate' },
  { glob: '*.tfvars', token: '.tfvars' },
];

const COMPILED = RULES.map((r) => ({ ...r, re: globToRegExp(r.glob, { caseInsensitive: true }) }));

/** Negated globs for ripgrep (`--iglob '!…'`), appended after any user glob so they take precedence. */
export const SENSITIVE_RG_EXCLUDES: readonly string[] = RULES.map((r) => `!${r.glob}`);

/** The rules a file name falls under (empty when it is not secret-bearing). */
function rulesFor(name: string): typeof COMPILED {
  return COMPILED.filter((r) => r.re.test(name));
}

export function isSensitiveName(name: string): boolean {
  return rulesFor(name).length > 0;
}

export function isSensitivePath(path: string): boolean {
  return isSensitiveName(basename(path));
}

/**
 * A filter for `find` results: hides secret-bearing files unless the search pattern names them (e.g. `**\/.env*`,
 * `*.{pem,key}`). Returns null when nothing is hidden by the pattern (fast path: no check per result).
 */
export function sensitiveFilterFor(pattern: string): ((path: string) => boolean) | null {
  const expansions = expandBraces(pattern.toLowerCase()).map((p) => p.slice(p.lastIndexOf('/') + 1));
  const named = new Set(COMPILED.filter((r) => expansions.some((p) => p.includes(r.token))).map((r) => r.glob));
  if (named.size === COMPILED.length) return null;
  return (path: string) => {
    const rules = rulesFor(basename(path));
    return rules.length === 0 || rules.some((r) => named.has(r.glob));
  };
}
