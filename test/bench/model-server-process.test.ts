/**
 * The benches' scripted model server in a child process of its own (bench/model-server-process.ts): the same replies,
 * routes and recorded requests as the server in process, and a child that always ends — when closed, when the bench's
 * process exits without closing it (bench/run.ts ends with process.exit), and when that process is killed outright.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startModelServerInProcess, startModelServerProcess, type BenchModelServer } from '../../bench/model-server-process';
import { reply } from '../support/model-server';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const HELPER = pathToFileURL(resolve(__dirname, '../../bench/model-server-process.ts')).href;

/** Gone, or a zombie waiting for its reaper (it runs nothing any more). */
function ended(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  try {
    return readFileSync(stat, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

async function waitEnded(pid: number): Promise<void> {
  for (let i = 0; i < 600 && !ended(pid); i++) await new Promise((r) => setTimeout(r, 50));
  expect(ended(pid)).toBe(true);
}

const chat = async (srv: BenchModelServer, user: string): Promise<string> => {
  const res = await fetch(`${srv.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: user }] }),
  });
  return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
};

describe.each([
  { where: 'child process', start: startModelServerProcess },
  { where: 'in process', start: () => startModelServerInProcess() },
])('the benches\' model server, $where', ({ where, start }) => {
  it('answers with the replies enqueued, then by route, and hands over each request once', async () => {
    const srv = await start();
    try {
      expect(srv.where).toBe(where);
      await srv.enqueue(reply().text('first'), { text: ['second'] });
      expect(await chat(srv, 'a')).toBe('first');
      expect(await chat(srv, 'b')).toBe('second');
      await srv.setRoutes({ routes: [{ contains: 'ITEM', reply: { text: ['ok'] } }], otherwise: { text: ['done'] } });
      await srv.enqueueUnrouted(reply().text('parent'));
      expect(await chat(srv, 'ITEM 1')).toBe('ok');
      expect(await chat(srv, 'start')).toBe('parent');
      expect(await chat(srv, 'ITEM 2')).toBe('ok');
      expect(await chat(srv, 'again')).toBe('done');
      const taken = await srv.take({ bodies: true });
      expect(taken.map((t) => (JSON.parse(t.body!) as { messages: { content: string }[] }).messages[0]!.content)).toEqual(['a', 'b', 'ITEM 1', 'start', 'ITEM 2', 'again']);
      // Wall-clock arrival times, in order.
      expect(taken.every((t, i) => t.at > 1.6e12 && (i === 0 || t.at >= taken[i - 1]!.at))).toBe(true);
      expect(await srv.take()).toEqual([]);
    } finally {
      await srv.close();
    }
    if (srv.pid !== null) expect(ended(srv.pid)).toBe(true);
  });
});

describe('the child process always ends', () => {
  /** A bench's process: starts the server, prints the child's pid, then `how`. */
  const bench = (how: string) => {
    const code = `const { startModelServerProcess } = await import(${JSON.stringify(HELPER)}); const s = await startModelServerProcess(); process.stdout.write(s.pid + '\\n'); ${how}`;
    const proc = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      proc.once('exit', (c) => reject(new Error(`the bench process exited (${c}) before printing the child's pid`)));
    });
    return { proc, pid };
  };

  it('when the bench exits without closing it (process.exit, as bench/run.ts ends)', async () => {
    const { pid } = bench('process.exit(0);');
    const childPid = await pid;
    expect(childPid).toBeGreaterThan(0);
    await waitEnded(childPid);
  }, 60_000);

  it('when the bench is killed outright (no exit listener runs: the child sees its stdin close)', async () => {
    const { proc, pid } = bench('setInterval(() => {}, 1000);');
    const childPid = await pid;
    expect(ended(childPid)).toBe(false);
    proc.kill('SIGKILL');
    await waitEnded(childPid);
  }, 60_000);
});
