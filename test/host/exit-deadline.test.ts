/**
 * A host's last resort on exit (exit-deadline.ts), in a real Node process: with a socket and a child process still
 * open past the deadline, the process exits with the given code and one line naming them; with nothing open, the
 * deadline's own timer does not keep the process alive.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const MODULE = resolve(__dirname, '../../src/main/host/assembly/exit-deadline.ts');

function node(code: string): Promise<{ code: number | null; stderr: string; exited: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { exitDeadline } from ${JSON.stringify(MODULE)};\n${code}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
      done({ code: null, stderr, exited: false });
    }, 60_000);
    child.once('exit', (c) => {
      clearTimeout(bound);
      done({ code: c, stderr, exited: true });
    });
  });
}

it('names what was still open (a TCP socket, a child process) and exits with the code given', async () => {
  const r = await node(`
    import { createServer, connect } from 'node:net';
    import { spawn } from 'node:child_process';
    const server = createServer(() => undefined).listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      connect(port, '127.0.0.1');
      spawn('sleep', ['30'], { stdio: 'ignore' });
      exitDeadline({ ms: 300, what: 'test host stopped', code: 7 });
    });
  `);
  expect(r.exited).toBe(true);
  expect(r.code).toBe(7);
  expect(r.stderr).toMatch(/^deskhand: test host stopped; still open after 300 ms: .*server \{"address":"127\.0\.0\.1".*socket to 127\.0\.0\.1:\d+.*child process \d+ \(sleep\)/m);
}, 90_000);

it('names a service still closing first, and never keeps a finished process alive itself', async () => {
  const stuck = await node(`exitDeadline({ ms: 200, what: 'stopped', code: 0, pending: () => ['the browser'] }); setInterval(() => undefined, 1000);`);
  expect(stuck.code).toBe(0);
  expect(stuck.stderr).toMatch(/still open after 200 ms: the browser \(closing\), 1 timer; exiting now\./);
  // A deadline past the bound in a process with nothing else to do: it ends at once, silently.
  const done = await node(`exitDeadline({ ms: 120_000, what: 'stopped', code: 5 }); process.exitCode = 0;`);
  expect(done.exited).toBe(true);
  expect(done.code).toBe(0);
  expect(done.stderr).toBe('');
}, 90_000);
