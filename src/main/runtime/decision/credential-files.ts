/**
 * Files whose content holds credentials, judged by what their text assigns whatever they are named (a `deploy.conf`
 * with `password: …`): the command classifier asks before a command reads one, and once a call that reads one runs,
 * the run's redactor learns the file's credential values, so output that carries them bare — `cut -d= -f2`, `rev`,
 * `awk '{print $2}'` — is redacted exactly, not only where a credential name stands next to the value.
 */
import { readFileSync, statSync } from 'node:fs';
import { statStamp } from '../../services/file-stamp/index';
import { CREDENTIAL_ENV_NAME, SecretRedactor } from '../context/redaction';

/** Larger files are not scanned (logs, data): their names and the redaction of output are what protect them. */
export const CREDENTIAL_SCAN_MAX_BYTES = 512 * 1024;
/** Values kept per file (a file with more is still judged by its first ones). */
const MAX_VALUES_PER_FILE = 64;

export interface CredentialValue {
  /** The shape's name (`password`, `aws-secret-key`…), used in the placeholder. */
  name: string;
  value: string;
}

const scans = new Map<string, { key: string; values: CredentialValue[] }>();

/**
 * The credential-looking values a file's text assigns to credential-named settings (`token`, `password`,
 * `client_secret`…): a value the redactor's shapes would redact, counted only where its line names a credential, so
 * hashes and ids are not credentials. Empty for a missing, binary, empty or large file.
 */
export function credentialFileValues(path: string): CredentialValue[] {
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch {
    return [];
  }
  if (!st || !st.isFile() || st.size === 0 || st.size > CREDENTIAL_SCAN_MAX_BYTES) return [];
  const key = statStamp(st);
  const cached = scans.get(path);
  if (cached?.key === key) return cached.values;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const values: CredentialValue[] = [];
  if (!text.includes('\0')) {
    for (const m of new SecretRedactor({ env: {} }).matches(text)) {
      const lineStart = text.lastIndexOf('\n', m.start - 1) + 1;
      if (!CREDENTIAL_ENV_NAME.test(text.slice(lineStart, m.start))) continue;
      values.push({ name: m.name, value: unquote(text.slice(m.start, m.end)) });
      if (values.length >= MAX_VALUES_PER_FILE) break;
    }
  }
  if (scans.size > 2000) scans.clear();
  scans.set(path, { key, values });
  return values;
}

function unquote(v: string): string {
  const t = v.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0] ? t.slice(1, -1) : t;
}
