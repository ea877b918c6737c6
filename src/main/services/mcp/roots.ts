/** The folders a conversation works in, as MCP roots (`file://` URIs with the folder's name). */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

export function rootsOf(folders: readonly string[]): { uri: string; name: string }[] {
  const seen = new Set<string>();
  const out: { uri: string; name: string }[] = [];
  for (const folder of folders) {
    const uri = pathToFileURL(folder).href;
    if (seen.has(uri)) continue;
    seen.add(uri);
    out.push({ uri, name: basename(folder) || folder });
  }
  return out;
}
