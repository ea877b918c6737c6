/**
 * Opening a stored conversation of 10,000 messages (Markdown, code blocks, tool calls with results) in the web UI in
 * headless Chromium, from the click on it in the sidebar until its last message is on screen (projection in the host,
 * transfer over the socket, parse, first virtualized render), warm and cold. The host is `deskhand web` as a person
 * runs it (the built CLI, a process of its own over a data folder seeded before it starts). Every open is paired, in
 * the same round, with opening a 20-message conversation of the same kind of messages the same way (the baseline:
 * what any open costs), the order swapping each round.
 *
 * Warm (open_10k_warm_ms): one host process and one page for all rounds, after one warm-up open of each: the database
 * file in the OS page cache, SQLite's own page cache of the host's connection holding what the last open read, the
 * host's and the renderer's code compiled. What switching back to a conversation costs in a running app.
 *
 * Cold (open_10k_cold_ms): what the first open after a restart costs when nothing of the conversation is in memory.
 * Each cold open has a fresh host process (a new SQLite connection: its page cache empty, no JIT of the projection
 * code, lazily loaded chunks not loaded yet) and a fresh browser context (a new renderer process, no code or HTTP
 * cache), started and shown the sidebar (which reads the conversation list, not the messages); then, just before the
 * click, the kernel's page cache, dentries and inodes are dropped (`sync; echo 3 > /proc/sys/vm/drop_caches`, root
 * only: the bench fails rather than print a warm figure as cold), so the conversation's rows are read from disk. What
 * stays warm, honestly: pages the running processes have mapped (the node and Chromium binaries, better-sqlite3's
 * library) — the kernel does not drop mapped pages — and the bench's Chromium browser process itself. The host's
 * start, the context's start and the drop are not timed. Each fresh page starts in the empty conversation (its
 * address names it; a new window would open the newest, the 10,000 messages, before the click), and the bench fails
 * unless the host had at least 1 MB read from the disk during each cold open of the 10,000 messages (read_bytes of
 * /proc/PID/io, printed as open_10k_cold_disk_read_kb): a cold figure taken from a warm cache is an error.
 *
 * Also the 95th-percentile frame time of wheel-scroll passes through the warm page (up, then down, alternating),
 * against the idle frame time of the same page.
 *
 * Rounds: DESKHAND_BENCH_ROUNDS (default 20) for each arm and for the scroll passes; every headline figure has n = 20.
 * A full run took 2 min 44 s on the shared 2-core machine at a load average of 6–12 (most of it the 40 cold opens,
 * each a host start, a browser context and a cache drop); a smoke run (one round of each) about 15 s.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Store } from '../src/main/services/store/store';
import { figure, percentile, ratio, roundsOf, type BenchResult } from './lib';
import { ROOT, startWebProcess, type WebProcess } from './ui-support';

const MESSAGES = 10_000;
const REPEATS = roundsOf(Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20));
const SCROLL_PASSES = roundsOf(Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20));
const LAST = 'LAST_MESSAGE_OF_TEN_THOUSAND';
const SMALL = 20;
const LAST_SMALL = 'LAST_MESSAGE_OF_TWENTY';
/** The provider the host is started with, so the app opens conversations rather than the first-run setup (no model is called). */
const NO_MODEL = 'http://127.0.0.1:9/v1';

/** Seeds the three conversations; returns the empty one's id (where a fresh page starts). */
function seed(store: Store, work: string): string {
  const big = store.createConversation({ id: `conv_${randomUUID()}`, title: 'Ten thousand', folder: work, policy: 'read-only' });
  const empty = store.createConversation({ id: `conv_${randomUUID()}`, title: 'Empty', folder: work, policy: 'read-only' });
  // The baseline: the same kind of messages, twenty of them.
  const small = store.createConversation({ id: `conv_${randomUUID()}`, title: 'Twenty', folder: work, policy: 'read-only' });
  const smallRun = `run_${randomUUID()}`;
  store.createRun({ id: smallRun, conversation_id: small.id, policy: 'read-only', provider: 'openai-compatible', model: 'bench', base_url: 'http://127.0.0.1:9/v1' });
  store.updateRun(smallRun, { status: 'finished', owner_pid: null });
  for (let i = 0; i < SMALL - 1; i++) {
    store.addMessage(small.id, smallRun, i % 2 ? 'assistant' : 'user', i % 2 ? [{ type: 'text', text: `Message **${i}**: the function \`answer${i}\` now doubles its input.` }] : `Question ${i}?`);
  }
  store.addMessage(small.id, smallRun, 'assistant', [{ type: 'text', text: `All done. ${LAST_SMALL}` }]);
  store.transaction(() => {
    let run = '';
    for (let i = 0; i < MESSAGES; i++) {
      if (i % 50 === 0) {
        run = `run_${randomUUID()}`;
        store.createRun({ id: run, conversation_id: big.id, policy: 'read-only', provider: 'openai-compatible', model: 'bench', base_url: 'http://127.0.0.1:9/v1' });
        store.updateRun(run, { status: 'finished', owner_pid: null });
      }
      if (i === MESSAGES - 1) {
        store.addMessage(big.id, run, 'assistant', [{ type: 'text', text: `All done. ${LAST}` }]);
      } else if (i % 2 === 0) {
        store.addMessage(big.id, run, 'user', `Question ${i}: can you look at src/module-${i % 97}.ts and tell me what changed?`);
      } else if (i % 10 === 1) {
        const callId = `call_${i}`;
        store.addMessage(big.id, run, 'assistant', [
          { type: 'text', text: `Reading the file first (${i}).` },
          { type: 'tool-call', toolCallId: callId, toolName: 'read_file', input: { path: `src/module-${i % 97}.ts` } },
        ]);
        const id = `tc_${randomUUID()}`;
        store.insertToolCall({ id, run_id: run, step: i, position: 0, call_id: callId, tool: 'read_file', args: JSON.stringify({ path: `src/module-${i % 97}.ts` }), args_sha256: 'x', risk: 'read-only', decision: 'allow', reasons: '[]', status: 'done' });
        store.updateToolCall(id, { output: `1\texport const value${i} = ${i};\n2\texport function f() { return value${i} * 2; }\n`.repeat(20), finished_at: Date.now() });
        store.addMessage(big.id, run, 'tool', [{ type: 'tool-result', toolCallId: callId, toolName: 'read_file', output: { type: 'text', value: 'ok' } }]);
      } else {
        const code = i % 6 === 3 ? `\n\n\`\`\`ts\nexport function answer${i}(x: number): number {\n  // doubled, as asked\n  return x * 2;\n}\n\`\`\`` : '';
        store.addMessage(
          big.id,
          run,
          'assistant',
          [{ type: 'text', text: `Message **${i}**: the function \`answer${i}\` now doubles its input; the tests in \`test/${i}.test.ts\` pass.\n\n- checked the callers\n- updated the docs${code}` }],
        );
      }
    }
  });
  return empty.id;
}

/** Empties the kernel's page cache, dentries and inodes (root only), after writing out what is dirty. */
function dropCaches(): void {
  execFileSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
  } catch (err) {
    throw new Error(`the cold arm needs to drop the page cache (echo 3 > /proc/sys/vm/drop_caches, as root), or it would time a warm open as cold: ${(err as Error).message}`);
  }
}

/** Bytes a process has had read from the disk so far (`read_bytes` of /proc/PID/io: not what the page cache served). */
function diskReadBytes(pid: number): number {
  const m = /^read_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  if (!m) throw new Error(`no read_bytes in /proc/${pid}/io`);
  return Number(m[1]);
}

type Which = 'big' | 'small';
const TITLE: Record<Which, string> = { big: 'Ten thousand', small: 'Twenty' };
const LAST_OF: Record<Which, string> = { big: LAST, small: LAST_SMALL };

/**
 * A page of the host at `url`, in a browser context of its own, showing the sidebar and the empty conversation (its
 * address names it: a new window would otherwise open the newest conversation, the 10,000 messages, before the click).
 */
async function openPage(browser: Browser, url: string, emptyId: string): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}#c=${emptyId}`);
  await page.getByRole('button', { name: TITLE.big, exact: true }).waitFor({ timeout: 60_000 });
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return { page, close: () => context.close() };
}

/**
 * From the click's event time to the frame where the conversation's last message is in the DOM (in the page).
 * `beforeClick` runs after the observer is armed, right before the click (the cold arm drops the caches there).
 */
async function timeOpen(page: Page, which: Which, beforeClick: () => void = () => undefined): Promise<number> {
  const last = LAST_OF[which];
  // Page-side code as strings: this file is type-checked for Node, without DOM types.
  await page.evaluate(`(() => {
    window.__opened = new Promise((resolve) => {
      let start = 0;
      document.addEventListener('click', (e) => (start = e.timeStamp), { capture: true, once: true });
      const observer = new MutationObserver(() => {
        if (start && document.body.textContent?.includes(${JSON.stringify(last)})) {
          observer.disconnect();
          // The next frame is the one that paints it.
          requestAnimationFrame(() => resolve(performance.now() - start));
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    });
  })()`);
  const button = page.getByRole('button', { name: TITLE[which], exact: true });
  await button.waitFor();
  // The observer must see the conversation arrive, not find it already there.
  if ((await page.evaluate('document.body.textContent.includes("All done.")')) as boolean) throw new Error(`a conversation was on screen before the click on "${TITLE[which]}"`);
  beforeClick();
  await button.click();
  return (await page.evaluate('window.__opened')) as number;
}

/** Leaves whatever conversation is open for the empty one, so the next open starts from nothing on screen. */
async function toEmpty(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Empty', exact: true }).click();
  await page.getByText('All done.').waitFor({ state: 'detached' });
}

export default async function open10k(): Promise<BenchResult> {
  if (!existsSync(join(ROOT, 'out', 'main', 'cli.js')) || !existsSync(join(ROOT, 'out', 'renderer', 'index.html'))) {
    throw new Error('The app is not built: run `npm run build` first.');
  }
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'deskhand-open10k-bench-')));
  const dataDir = join(root, 'data');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  let emptyId = '';
  {
    const store = new Store(dataDir);
    emptyId = seed(store, work);
    store.close(); // checkpointed: every row in the database file, no WAL left for the hosts
  }
  const hosts: WebProcess[] = [];
  const startHost = async (): Promise<WebProcess> => {
    const web = await startWebProcess({ dataDir, cwd: work, baseURL: NO_MODEL });
    hosts.push(web);
    return web;
  };
  const stopHost = async (web: WebProcess): Promise<void> => {
    const code = await web.stop();
    hosts.splice(hosts.indexOf(web), 1);
    if (code !== 0) throw new Error(`deskhand web exited with ${code}:\n${web.stderr()}`);
  };
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  const warm = { big: [] as number[], small: [] as number[] };
  const cold = { big: [] as number[], small: [] as number[] };
  const coldReadKb = { big: [] as number[], small: [] as number[] };
  const frameP95s: number[] = [];
  const frames: number[] = [];
  let idleFrames: number[] = [];
  try {
    // ── Warm: one host, one page ──────────────────────────────────────────────────────────────────────────────────
    const web = await startHost();
    const ui = await openPage(browser, web.url, emptyId);
    const page = ui.page;
    const openWarm = async (which: Which): Promise<number> => {
      await toEmpty(page);
      return timeOpen(page, which);
    };
    await openWarm('big'); // warm-up, one of each
    await openWarm('small');
    for (let r = 0; r < REPEATS; r++) {
      const order: Which[] = r % 2 === 0 ? ['big', 'small'] : ['small', 'big'];
      for (const which of order) warm[which].push(await openWarm(which));
    }

    // Frame times: idle first (the baseline), then while scrolling through the list with the wheel, in passes (up,
    // then down, alternating, so every pass scrolls through messages).
    await openWarm('big');
    const list = page.getByRole('log', { name: 'Messages' });
    await list.hover();
    const record = `(() => {
      window.__frames = [];
      window.__stop = false;
      let last = performance.now();
      const tick = (t) => {
        window.__frames.push(t - last);
        last = t;
        if (!window.__stop) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    })()`;
    const collect = async (): Promise<number[]> => (await page.evaluate('(window.__stop = true, window.__frames.slice(2))')) as number[];
    await page.evaluate(record);
    await page.waitForTimeout(1000);
    idleFrames = await collect();
    for (let pass = 0; pass < SCROLL_PASSES; pass++) {
      const before = await list.evaluate((el) => el.scrollTop);
      await page.evaluate(record);
      const dy = pass % 2 === 0 ? -600 : 600;
      for (let i = 0; i < 40; i++) await page.mouse.wheel(0, dy);
      const got = await collect();
      const after = await list.evaluate((el) => el.scrollTop);
      if (Math.abs(before - after) < 20_000) throw new Error(`scroll pass ${pass} did not scroll through the list (${before} → ${after})`);
      frames.push(...got);
      frameP95s.push(percentile(got, 0.95));
    }
    if (process.env.DESKHAND_BENCH_SCREENSHOT) await page.screenshot({ path: process.env.DESKHAND_BENCH_SCREENSHOT });
    await ui.close();
    await stopHost(web);

    // ── Cold: a fresh host and context for every open, the page cache dropped right before the click ──────────────
    for (let r = 0; r < REPEATS; r++) {
      const order: Which[] = r % 2 === 0 ? ['big', 'small'] : ['small', 'big'];
      for (const which of order) {
        const fresh = await startHost();
        const p = await openPage(browser, fresh.url, emptyId);
        let readBefore = 0;
        cold[which].push(await timeOpen(p.page, which, () => (dropCaches(), (readBefore = diskReadBytes(fresh.pid)))));
        // Proof that it was cold: the host had the conversation's rows read from the disk, not from the page cache.
        const read = diskReadBytes(fresh.pid) - readBefore;
        if (which === 'big' && read < 1024 * 1024) throw new Error(`a cold open of the 10,000 messages read only ${read} bytes from disk: the database was still cached`);
        coldReadKb[which].push(read / 1024);
        await p.close();
        await stopHost(fresh);
      }
    }
  } finally {
    await browser.close();
    for (const web of [...hosts]) await web.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return {
    open_10k_warm_ms: figure(warm.big, { unit: 'ms', baseline: 'click to last message painted, one host and page, warm; 20-message conversation below, same rounds', headline: true }),
    open_20_warm_ms: figure(warm.small, { unit: 'ms' }),
    open_10k_warm_vs_20_ratio: ratio(warm.big, warm.small, { baseline: 'opening a 20-message conversation, warm, interleaved', headline: true }),
    open_10k_cold_ms: figure(cold.big, { unit: 'ms', baseline: 'the same, each open in a fresh host process and browser context, page cache dropped before the click', headline: true }),
    open_20_cold_ms: figure(cold.small, { unit: 'ms' }),
    open_10k_cold_disk_read_kb: figure(coldReadKb.big, { unit: 'KB', baseline: 'read from disk by the host during a cold open (/proc/PID/io read_bytes)' }),
    open_20_cold_disk_read_kb: figure(coldReadKb.small, { unit: 'KB' }),
    open_10k_cold_vs_20_ratio: ratio(cold.big, cold.small, { baseline: 'opening a 20-message conversation, cold the same way, same rounds', headline: true }),
    scroll_10k_frame_p95_ms: figure(frameP95s, { unit: 'ms', baseline: 'p95 frame time of one wheel-scroll pass (40 × 600 px, up and down alternating); idle frame time below', headline: true }),
    scroll_10k_frame_ms: figure(frames, { unit: 'ms', baseline: 'every frame while scrolling' }),
    idle_frame_ms: figure(idleFrames, { unit: 'ms', baseline: 'requestAnimationFrame with nothing happening, same page' }),
  };
}
