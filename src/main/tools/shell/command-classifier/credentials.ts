/** Files whose content holds credentials: judged by what their text assigns, whatever they are named. */
import { readFileSync, statSync } from 'node:fs';
import { CREDENTIAL_ENV_NAME, SecretRedactor } from '../../../runtime/redaction';

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
