/**
 * Whose words a command's output carries (issue 46, taint by source). The output of a command is untrusted content
 * (`command output`: enveloped, and it taints the run) unless all of these hold, in which case it is the workspace's
 * own text, as trusted as `read_file` of the same files:
 * - the OS sandbox ran it with the network off (nothing it printed came from another machine while it ran);
 * - every path the classifier checked, and every word of the command that looks like a path (has a `/`, starts with
 *   `~` or `..`), lies inside the workspace roots and in no downloads folder (`downloads/`, `~/Downloads`: files
 *   that came from the web keep their source);
 * - the command has no expansion whose value cannot be read from its text (`$`, backticks, globs outside quotes).
 * A command that read a download, a file outside the workspace, or anything it could not name still taints the run.
 */
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { PathCheck } from '../../runtime/decision/path-guard';
import type { SandboxPlan } from '../../services/sandbox';

/** A folder that holds what was downloaded from the web (in any case): its files keep their source. */
export function inDownloads(path: string): boolean {
  return path.split(/[\\/]/).some((part) => part.toLowerCase() === 'downloads');
}

function inside(path: string, roots: readonly string[]): boolean {
  return roots.some((r) => {
    const rel = relative(resolve(r), path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/** Devices a command writes to or reads nothing from: no one's words. */
const QUIET_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** The command's words, roughly (quotes removed, operators as separators): enough to find path-like words. */
function words(command: string): string[] {
  return command
    .split(/[\s;|&<>()]+/)
    .map((w) => w.replace(/^['"]|['"]$/g, '').replace(/^[A-Za-z_][A-Za-z0-9_]*=/, '').replace(/^--?[A-Za-z0-9-]+=/, ''))
    .filter((w) => w !== '');
}

/** The untrusted source of a command's output, or null when it is the workspace's own text (see above). */
export function commandOutputSource(command: string, cwd: string, plan: Pick<SandboxPlan, 'kind' | 'network'>, roots: readonly string[], checked: Iterable<PathCheck>): string | null {
  const untrusted = 'command output';
  if (!plan.kind || plan.network) return untrusted;
  // Expansions and globs name files the text does not show.
  if (/[$`]/.test(command) || /(^|[^'"\w])[*?[]/.test(command.replace(/'[^']*'/g, "''"))) return untrusted;
  for (const c of checked) {
    if (c.error || c.untrusted || !c.root || inDownloads(c.resolved)) return untrusted;
  }
  for (const w of words(command)) {
    if (QUIET_DEVICES.has(w)) continue;
    if (!w.includes('/') && !w.startsWith('~') && !w.startsWith('..')) continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(w)) return untrusted; // a URL: the network is off, but say so anyway
    const abs = w.startsWith('~') ? resolve(homedir(), w.slice(w.startsWith(`~${sep}`) || w.startsWith('~/') ? 2 : 1)) : resolve(cwd, w);
    if (!inside(abs, roots) || inDownloads(abs)) return untrusted;
  }
  if (!inside(resolve(cwd), roots) || inDownloads(resolve(cwd))) return untrusted;
  return null;
}
