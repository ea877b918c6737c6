/**
 * Reading a git config text as git does for what matters here: which settings it holds. Used by the shell
 * classifier (a config a command points git at) and the sandbox (a git dir a command planted).
 */

/**
 * Each setting line of a git config text: its `section.subsection.key` name (lower-case section and key, the
 * subsection kept as written), or null for a line outside any section or one git's grammar does not read as a key.
 */
export function gitConfigSettings(text: string): { name: string | null; line: string }[] {
  const settings: { name: string | null; line: string }[] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (head) {
      section = head[2] !== undefined ? `${head[1]!.toLowerCase()}.${head[2]}` : head[1]!.toLowerCase();
      line = head[3]!.trim();
      if (!line) continue;
    }
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(=|$|\s)/.exec(line);
    settings.push({ name: key && section ? `${section}.${key[1]!.toLowerCase()}` : null, line });
  }
  return settings;
}
