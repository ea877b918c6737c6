/**
 * Starting the detached job worker: `node out/main/job-worker.js` next to the built app, or the TypeScript entry
 * through tsx when running from source (tests, `npm start` in dev). In Electron the app binary runs as Node and loads
 * the same better-sqlite3 build as the app (native-binding.ts).
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchHostProgram } from '../processes/launcher';
import { processStartTime, selfIdentity, type ProcIdentity } from '../processes/proc-info';
import { SQLITE_BINDING_ENV, sqliteBinding } from '../store/native-binding';

export type WorkerLauncher = (dataDir: string, batchId: string) => ProcIdentity | null;

/** `[file, args]` that run the worker entry with Node. */
export function workerCommand(): { file: string; args: string[]; env: Record<string, string> } {
  const here = dirname(fileURLToPath(import.meta.url));
  const env: Record<string, string> = process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
  // The worker opens the store with the same better-sqlite3 build as this process (Electron's, in the app).
  const binding = sqliteBinding();
  if (binding) env[SQLITE_BINDING_ENV] = binding;
  // Bundled: out/main/job-worker.js beside the entry (or one level up from a shared chunk).
  for (const candidate of [join(here, 'job-worker.js'), join(here, '..', 'job-worker.js')]) {
    if (existsSync(candidate)) return { file: process.execPath, args: [candidate], env };
  }
  const source = join(here, 'job-worker-main.ts');
  if (existsSync(source)) {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    return { file: process.execPath, args: ['--import', tsx, source], env };
  }
  throw new Error('The job worker is not built: run `npm run build` (out/main/job-worker.js is missing).');
}

/**
 * Spawns a worker for `batchId` in its own session (no pipes to us, so a terminal's Ctrl-C reaches only Deskhand). It
 * lives no longer than this process: it is given our identity (`--parent pid:start`), stops its jobs (SIGTERM, then
 * SIGKILL) when we are gone, and the batch resumes when Deskhand starts again.
 */
export const launchWorker: WorkerLauncher = (dataDir, batchId) => {
  const { file, args, env } = workerCommand();
  const me = selfIdentity();
  const logDir = join(dataDir, 'tasks');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  const fd = openSync(join(logDir, `${batchId}.worker.log`), 'a', 0o600);
  try {
    // Deskhand's own worker (a fixed program: this Node with the worker entry), on the host: the jobs it runs go
    // through the launcher's model entry themselves (CommandProcess).
    const { child } = launchHostProgram({ program: file, args: [...args, '--data-dir', dataDir, '--batch', batchId, '--parent', `${me.pid}:${me.start}`], stdio: ['ignore', fd, fd], env });
    child.on('error', () => undefined);
    child.unref();
    if (child.pid === undefined) return null;
    // The start time is fixed at fork, so reading it now is right even before the worker's exec completes.
    return { pid: child.pid, start: processStartTime(child.pid) ?? '' };
  } finally {
    closeSync(fd);
  }
};
