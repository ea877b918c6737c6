/** Files whose content holds credentials: judged by what their text assigns, whatever they are named. */
import { credentialFileValues } from '../../../runtime/decision/credential-files';

export { CREDENTIAL_SCAN_MAX_BYTES } from '../../../runtime/decision/credential-files';

/**
 * The credential-named settings a file's text assigns a credential-looking value (`token`, `password`,
 * `client_secret`…), as a short list of names, or null (runtime/decision/credential-files.ts judges the file).
 */
export function credentialContent(path: string): string | null {
  const names = [...new Set(credentialFileValues(path).map((v) => v.name))].slice(0, 4);
  return names.length ? names.join(', ') : null;
}
