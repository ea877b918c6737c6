/** Spawns test/support/store-child-main.ts and follows what it prints. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';

export interface StoreChild {
  proc: ChildProcessWithoutNullStreams;
  /** Resolves when the child has printed `line` (at any time since it started). */
  printed(line: string): Promise<void>;
  send(line: string): void;
  /** Exit code (or signal name) and everything it wrote to stderr. */
  exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
}

export function storeChild(mode: 'open' | 'own-run' | 'write', dataDir: string, id: string): StoreChild {
  const proc = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'store-child-main.ts'), mode, dataDir, id], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { line: string; done: () => void }[] = [];
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const w of [...waiters]) {
      if (out.split('\n').includes(w.line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
    }
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((res) => proc.on('close', (code, signal) => res({ code, signal, stderr: err })));
  return {
    proc,
    printed: (line) =>
      new Promise<void>((res, rej) => {
        if (out.split('\n').includes(line)) return res();
        waiters.push({ line, done: res });
        void exited.then((e) => rej(new Error(`child exited (${e.code ?? e.signal}) before printing "${line}": ${e.stderr}`)));
      }),
    send: (line) => proc.stdin.write(`${line}\n`),
    exited,
  };
}
