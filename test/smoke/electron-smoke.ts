/**
 * `npm run smoke:electron`: the real desktop app in the real Electron, end to end — launched against the scripted
 * model server, it sends a message, approves the write the model asks for, checks the file, quits, and checks that no
 * process it started is left. Where no Electron binary exists (or no better-sqlite3 build for it can be made), it
 * prints one line saying it was skipped and exits 0.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from 'playwright';
import { ROOT, electronBinary, ensureElectronNative } from '../../scripts/electron-native.mjs';
import { reply, startModelServer } from '../support/model-server';

function skip(reason: string): never {
  process.stdout.write(`Electron smoke: skipped — ${reason}.\n`);
  process.exit(0);
}

/** Pids of `root` and everything below it, from the process table. */
function tree(root: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of rows) if (ppid === out[i]) out.push(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const electron = electronBinary(ROOT);
  if (!electron.path) skip(electron.reason);
  const native = ensureElectronNative(ROOT);
  if (!native.ok) skip(native.reason);
  if (!['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'].every((f) => existsSync(join(ROOT, f)))) {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }

  const root = realpathSync(mkdtempSync(join(tmpdir(), 'deskhand-smoke-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(dataDir);
  mkdirSync(work);
  const server = await startModelServer();
  server.enqueue(reply().text('Writing it.').tool('write_file', { path: 'smoke.txt', content: 'hello from the smoke test\n' }), reply().text('Done.'));
  writeFileSync(
    join(dataDir, 'settings.json'),
    JSON.stringify({
      activeProvider: 'openai-compatible',
      providers: { anthropic: { model: 'claude-sonnet-4-5', baseURL: null }, openai: { model: 'gpt-5', baseURL: null }, 'openai-compatible': { model: 'scripted', baseURL: server.baseURL } },
      defaultPolicy: 'read-only',
    }),
  );

  const app = await _electron.launch({
    executablePath: electron.path!,
    args: [join(ROOT, 'out/main/index.js')],
    cwd: work,
    env: { ...(process.env as Record<string, string>), DESKHAND_HOME: dataDir, DESKHAND_KEYRING_SERVICE: `Deskhand-smoke-${process.pid}`, DESKHAND_OLLAMA_URL: 'http://127.0.0.1:9', DESKHAND_LMSTUDIO_URL: 'http://127.0.0.1:9' },
  });
  const mainPid = app.process().pid!;
  let pids: number[] = [];
  try {
    const page = await app.firstWindow();
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New conversation' });
    await dialog.getByLabel('Working folder').fill(work);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('write the smoke file');
    await box.press('Enter');
    const card = page.getByRole('region', { name: 'Write a file' });
    await card.getByRole('button', { name: 'Approve' }).click({ timeout: 30_000 });
    await page.getByText('Done.', { exact: true }).first().waitFor({ timeout: 30_000 });
    const written = readFileSync(join(work, 'smoke.txt'), 'utf8');
    if (written !== 'hello from the smoke test\n') throw new Error(`smoke.txt holds ${JSON.stringify(written)}`);
    pids = tree(mainPid);
    // Quit as the tray's Quit does; the evaluation may lose its connection as the app goes.
    await app.evaluate(({ app: electronApp }) => electronApp.quit()).catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('Electron did not exit within 20 s of Quit')), 20_000);
      if (app.process().exitCode !== null) return resolve();
      app.process().once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const deadline = Date.now() + 5000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const left = pids.filter(alive);
    if (left.length) throw new Error(`processes left after Quit: ${left.join(', ')}`);
    process.stdout.write(`Electron smoke: passed — message sent, write approved, app quit, none of its ${pids.length} processes left.\n`);
  } finally {
    if (app.process().exitCode === null) await app.close().catch(() => undefined);
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`Electron smoke: FAILED — ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
