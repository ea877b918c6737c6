/**
 * open_10k_messages_ms: a stored conversation of 10,000 messages (Markdown, code blocks, tool calls with results)
 * opened in the web UI in headless Chromium — from the click on it in the sidebar until its last message is on screen
 * (projection in main, transfer over the socket, parse, first virtualized render). Interleaved in the same run with
 * opening a 20-message conversation the same way (the baseline: what any open costs). Also the 95th-percentile frame
 * time of wheel-scroll passes up through it, against the idle frame time of the same page.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../src/main/services/store/store';
import { figure, percentile, ratio, type BenchResult } from './lib';
import { openUiHost } from './ui-support';

const MESSAGES = 10_000;
const REPEATS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 7);
const LAST = 'LAST_MESSAGE_OF_TEN_THOUSAND';
const SMALL = 20;
const LAST_SMALL = 'LAST_MESSAGE_OF_TWENTY';

function seed(store: Store, work: string): void {
  const big = store.createConversation({ id: `conv_${randomUUID()}`, title: 'Ten thousand', folder: work, policy: 'read-only' });
  store.createConversation({ id: `conv_${randomUUID()}`, title: 'Empty', folder: work, policy: 'read-only' });
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
}

export default async function open10k(): Promise<BenchResult> {
  // A provider is configured so the app opens conversations rather than the first-run setup (no model is called).
  const ui = await openUiHost({ seed, provider: { provider: 'openai-compatible', model: 'bench', baseURL: 'http://127.0.0.1:9/v1', apiKey: null } });
  const page = ui.page;
  const times = { big: [] as number[], small: [] as number[] };
  const frameP95s: number[] = [];
  const frames: number[] = [];
  let idleFrames: number[] = [];
  try {
    const big = page.getByRole('button', { name: 'Ten thousand', exact: true });
    const small = page.getByRole('button', { name: 'Twenty', exact: true });
    const empty = page.getByRole('button', { name: 'Empty', exact: true });
    await big.waitFor();
    /** From the click's event time to the frame where the conversation's last message is in the DOM (in the page). */
    const open = async (button: typeof big, last: string): Promise<number> => {
      await empty.click();
      await page.getByText('All done.').waitFor({ state: 'detached' });
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
      await button.click();
      return (await page.evaluate('window.__opened')) as number;
    };
    // Interleaved, the order swapping each round; one warm-up of each.
    await open(big, LAST);
    await open(small, LAST_SMALL);
    for (let r = 0; r < REPEATS; r++) {
      if (r % 2 === 0) {
        times.big.push(await open(big, LAST));
        times.small.push(await open(small, LAST_SMALL));
      } else {
        times.small.push(await open(small, LAST_SMALL));
        times.big.push(await open(big, LAST));
      }
    }

    // Frame times: idle first (the baseline), then while scrolling up through the list with the wheel, in passes.
    await open(big, LAST);
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
    const before = await list.evaluate((el) => el.scrollTop);
    for (let pass = 0; pass < 3; pass++) {
      await page.evaluate(record);
      for (let i = 0; i < 40; i++) await page.mouse.wheel(0, -600);
      const got = await collect();
      frames.push(...got);
      frameP95s.push(percentile(got, 0.95));
    }
    const after = await list.evaluate((el) => el.scrollTop);
    if (before - after < 20_000) throw new Error(`the list did not scroll (${before} → ${after})`);
    if (process.env.DESKHAND_BENCH_SCREENSHOT) await page.screenshot({ path: process.env.DESKHAND_BENCH_SCREENSHOT });
  } finally {
    await ui.close();
  }
  return {
    open_10k_messages_ms: figure(times.big, { unit: 'ms', baseline: 'click to last message painted; 20-message conversation below, same run' }),
    open_20_messages_ms: figure(times.small, { unit: 'ms' }),
    open_10k_vs_20_ratio: ratio(times.big, times.small, { baseline: 'opening a 20-message conversation, interleaved' }),
    scroll_10k_frame_p95_ms: figure(frameP95s, { unit: 'ms', baseline: 'p95 frame time of one wheel-scroll pass (40 × 600 px); idle frame time below' }),
    scroll_10k_frame_ms: figure(frames, { unit: 'ms', baseline: 'every frame while scrolling' }),
    idle_frame_ms: figure(idleFrames, { unit: 'ms', baseline: 'requestAnimationFrame with nothing happening, same page' }),
  };
}
