/** `deskhand web` as a child process (the built binary) and a WebSocket client of its contract, for end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { BIN, cliEnv } from './cli';

export interface Web {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `deskhand web --json` on a data folder with the scripted model as its provider; resolves with its address. */
export async function startWeb(opts: { dataDir: string; baseURL: string; env?: NodeJS.ProcessEnv; live?: ChildProcess[] }): Promise<Web> {
  const child = spawn(process.execPath, [BIN, 'web', '--json', '--data-dir', opts.dataDir, '--provider', 'openai', '--base-url', opts.baseURL, '--model', 'test-model'], {
    env: cliEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  opts.live?.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`deskhand web exited (${code}):\n${stderr}`)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    exited,
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

type Reply = { t: 'reply'; id: number; ok: boolean; result?: unknown; error?: { code: string; message: string } };
export type WebMessage = Reply | { t: 'events'; events: { type?: string; event?: string; [k: string]: unknown }[] };

export interface WebClient {
  ws: WebSocket;
  messages: WebMessage[];
  call<T = unknown>(method: string, params: unknown): Promise<T>;
  until<T>(pick: () => T | undefined, ms?: number): Promise<T>;
}

/** A WebSocket client of the contract, as the renderer is one (the token's path, the host's Origin). */
export async function connectWeb(web: Pick<Web, 'url'>): Promise<WebClient> {
  const u = new URL(web.url);
  const ws = new WebSocket(`ws://${u.host}${u.pathname}ws`, { headers: { origin: `http://${u.host}` } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const messages: WebMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (d: Buffer) => {
    messages.push(JSON.parse(d.toString()) as WebMessage);
    for (const w of [...waiters]) w();
  });
  let n = 0;
  const until = <T,>(pick: () => T | undefined, ms = 10_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; last messages ${JSON.stringify(messages.slice(-5)).slice(0, 800)}`)), ms);
      const check = () => {
        const v = pick();
        if (v === undefined) return;
        clearTimeout(t);
        waiters.delete(check);
        resolve(v);
      };
      waiters.add(check);
      check();
    });
  return {
    ws,
    messages,
    async call<T = unknown>(method: string, params: unknown): Promise<T> {
      const id = ++n;
      ws.send(JSON.stringify({ id, method, params }));
      const r = await until(() => messages.find((m): m is Reply => m.t === 'reply' && m.id === id), 30_000);
      if (!r.ok) throw new Error(`${method}: ${r.error?.code} ${r.error?.message}`);
      return r.result as T;
    },
    until,
  };
}
