/**
 * Secret-bearing files that searches skip: `find` never lists them and `grep` never searches them, whatever the
 * pattern names (Spec II). (Reading one on purpose with read_file is allowed; redaction happens in the runtime.)
 */
import { basename } from 'node:path';
import { globToRegExp } from './glob';

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
