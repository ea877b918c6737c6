/**
 * `deskhand web --remote` through the real binary (issue 51, item 3): a second `deskhand web --listen 127.0.0.3:0`
 * process stands for the bigger machine. This machine pairs with the link its `deskhand devices pair` printed (the
 * credential goes to the keyring: a throwaway keyring service), serves the UI on 127.0.0.1 with the machine named in
 * the page, and a call made there lands in the other machine's store. Restarted with only the https:// address, it
 * attaches again from what it kept. Needs the keyring (scripts/test.sh provides it).
 */
import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BIN, cliEnv, requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

const live: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of live.splice(0)) c.kill('SIGKILL');
});
const env = cliEnv({ DESKHAND_KEYRING_SERVICE: `deskhand-test-remote-${process.pid}-${Date.now()}` });

async function web(args: string[]): Promise<Record<string, unknown> & { stop(): Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, 'web', '--json', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const printed = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.once('exit', (code) => reject(new Error(`deskhand web exited (${code}):\n${stderr}`)));
  });
  return { ...printed, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) };
}

function call(url: string, method: string, params: unknown): Promise<{ ok: boolean; result?: unknown; error?: unknown }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${u.host}${u.pathname}ws`, { headers: { origin: `http://${u.host}` } });
    ws.once('open', () => ws.send(JSON.stringify({ id: 1, method, params })));
    ws.on('message', (d: Buffer) => {
      const m = JSON.parse(d.toString()) as { t: string; id?: number };
      if (m.t === 'reply' && m.id === 1) {
        ws.close();
        resolve(m as never);
      }
    });
    ws.once('error', reject);
  });
}

it('pairs with the bigger machine by its link, drives it from 127.0.0.1, and attaches again by its address', async () => {
  requireBuild();
  const bigData = tempDir('deskhand-remote-cli-big-');
  const hereData = tempDir('deskhand-remote-cli-here-');
  const big = await web(['--data-dir', bigData, '--listen', '127.0.0.3:0']);
  const pairing = await runCli(['devices', 'pair', '--json', '--no-wait', '--data-dir', bigData], { env: { DESKHAND_KEYRING_SERVICE: env.DESKHAND_KEYRING_SERVICE! } });
  expect(pairing.code, pairing.stderr).toBe(0);
  const { link } = JSON.parse(pairing.stdout.split('\n')[0]!) as { link: string };

  const here = await web(['--data-dir', hereData, '--remote', link]);
  expect(here.remote).toMatch(/^127\.0\.0\.3:\d+$/);
  expect(await (await fetch(String(here.url))).text()).toContain(`<meta name="deskhand-remote" content="${String(here.remote)}">`);
  const made = await call(String(here.url), 'createConversation', { folder: tempDir('deskhand-remote-cli-work-'), policy: 'read-only', title: 'driven from here' });
  expect(made.ok, JSON.stringify(made)).toBe(true);
  const listed = await runCli(['devices', 'list', '--json', '--data-dir', bigData]);
  expect((JSON.parse(listed.stdout) as { devices: unknown[] }).devices).toHaveLength(1);
  await here.stop();

  // Again, by its address only: the certificate and the credential were kept.
  const again = await web(['--data-dir', hereData, '--remote', (big.devices as { url: string }).url]);
  const conversations = await call(String(again.url), 'listConversations', {});
  expect(JSON.stringify(conversations)).toContain('driven from here');
  await again.stop();
  await big.stop();
}, 120_000);
