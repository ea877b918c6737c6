/** Output logs of ended tasks are deleted after a while (the rows stay), so the data dir stays bounded. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskStore } from './task-store';

export const LOG_RETENTION_MS = 7 * 24 * 3600_000;

/** Deletes the logs of tasks that ended before `Date.now() - maxAgeMs`; returns how many files were removed. */
export function pruneTaskLogs(rows: TaskStore, dataDir: string, maxAgeMs = LOG_RETENTION_MS): number {
  const old = rows.endedWithLogs(Date.now() - maxAgeMs);
  let removed = 0;
  for (const t of old) {
    const paths = [t.output_path, join(dataDir, 'tasks', `${t.id}.worker.log`), ...rows.jobs(t.id).map((j) => j.output_path)];
    for (const p of paths) {
      if (!p) continue;
      try {
        rmSync(p, { force: true });
        removed++;
      } catch {
        // keep going
      }
    }
    rows.clearOutputPaths(t.id);
  }
  return removed;
}
