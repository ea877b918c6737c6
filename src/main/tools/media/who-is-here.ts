/**
 * who_is_here (Spec I): whether other Deskhand runs are working in a folder — running or parked, in this process or
 * another — and whether they are writing there (writing tool calls in the last 15 minutes, with their paths).
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool } from '../../runtime/tool';
import type { PresenceService } from '../../services/presence/index';

const WINDOW_MS = 15 * 60_000;
const inside = (child: string, parent: string) => {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

export const createWhoIsHere = (presence: PresenceService) =>
  defineTool({
    name: 'who_is_here',
    description:
      'Check whether other Deskhand conversations are working in a folder (default: the working directory): runs that are ' +
      'running or waiting for approval whose folder overlaps it, and whether they are writing (their file-changing tool ' +
      'calls in the last 15 minutes, with paths). Use it before large edits in a folder others may be changing.',
    params: () => z.object({ path: z.string().optional().describe('The folder to check (default: the working directory).') }).strict(),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'Check who works here', icon: 'file', summary: (args) => args.path ?? '.' },
    async execute(args, ctx) {
      const dir = resolvePath(args.path ?? '.', ctx.state.cwd);
      const runs = presence
        .activeRuns(WINDOW_MS)
        .filter((r) => r.runId !== ctx.runId && (inside(resolve(r.folder), dir) || inside(dir, resolve(r.folder))));
      if (runs.length === 0) return { output: `Nobody else is working in ${dir}: no other Deskhand run is running or waiting there.` };
      const lines = [`${runs.length} other run${runs.length === 1 ? '' : 's'} in or around ${dir}:`];
      for (const r of runs) {
        const where = r.status === 'parked' ? 'waiting for an approval' : r.ownerAlive ? `running (pid ${r.ownerPid})` : 'marked running, but its process is gone';
        const writing = r.writes.filter((w) => w.path === null || w.tool === 'execute_command' || inside(resolvePath(w.path, r.folder), dir));
        lines.push(`- "${r.title}" (${r.conversationId}), folder ${r.folder}: ${where}; ${writing.length ? `writing — ${writing.length} change${writing.length === 1 ? '' : 's'} in the last 15 minutes:` : 'not writing here in the last 15 minutes.'}`);
        for (const w of writing.slice(0, 10)) lines.push(`    ${w.tool}${w.path ? ` ${w.path}` : ''} (${w.status}, ${new Date(w.at).toISOString()})`);
      }
      return { output: lines.join('\n') };
    },
  });
