/**
 * open_10k_messages_ms: a stored conversation of 10,000 messages (Markdown, code blocks, tool calls with results)
 * opened in the web UI in headless Chromium — from the click on it in the sidebar until its last message is on screen
 * (projection in main, transfer over the socket, parse, first virtualized render). Repeated; the median is reported,
 * with half the spread between the fastest and slowest open as the machine's noise. Also the 95th-percentile frame time
 * while scrolling up through it.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../src/main/services/store/store';
import { halfRange, median, openUiHost, round } from './ui-support';

const MESSAGES = 10_000;
const REPEATS = 7;
const LAST = 'LAST_MESSAGE_OF_TEN_THOUSAND';

function seed(store: Store, work: string): void {
  const big = store.createConversation({ id: `conv_${randomUUID()}`, title: 'Ten thousand', folder: work, policy: 'read-only' });
  store.createConversation({ id: `conv_${randomUUID()}`, title: 'Empty', folder: work, policy: 'read-only' });
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

export default async function open10k(): Promise<Record<string, number>> {
  // A provider is configured so the app opens conversations rather than the first-run setup (no model is called).
  const ui = await openUiHost({ seed, provider: { provider: 'openai-compatible', model: 'bench', baseURL: 'http://127.0.0.1:9/v1', apiKey: null } });
  const page = ui.page;
  const times: number[] = [];
  let frameP95 = 0;
  try {
    const big = page.getByRole('button', { name: 'Ten thousand', exact: true });
    const empty = page.getByRole('button', { name: 'Empty', exact: true });
    await big.waitFor();
    for (let r = 0; r < REPEATS; r++) {
      await empty.click();
      await page.getByText('All done.').waitFor({ state: 'detached' });
      // Measured in the page: from the click's event time to the frame where the last message is in the DOM.
      // Page-side code as strings: this file is type-checked for Node, without DOM types.
      await page.evaluate(`(() => {
        window.__opened = new Promise((resolve) => {
          let start = 0;
          document.addEventListener('click', (e) => (start = e.timeStamp), { capture: true, once: true });
          const observer = new MutationObserver(() => {
            if (start && document.body.textContent?.includes(${JSON.stringify(LAST)})) {
              observer.disconnect();
              // The next frame is the one that paints it.
              requestAnimationFrame(() => resolve(performance.now() - start));
            }
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        });
      })()`);
      await big.click();
      times.push((await page.evaluate('window.__opened')) as number);
    }

    // Scroll up through the list with the wheel and record frame times.
    const list = page.getByRole('log', { name: 'Messages' });
    await list.hover();
    await page.evaluate(`(() => {
      window.__frames = [];
      window.__stop = false;
      let last = performance.now();
      const tick = (t) => {
        window.__frames.push(t - last);
        last = t;
        if (!window.__stop) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    })()`);
    const before = await list.evaluate((el) => el.scrollTop);
    for (let i = 0; i < 120; i++) await page.mouse.wheel(0, -600);
    const after = await list.evaluate((el) => el.scrollTop);
    if (before - after < 20_000) throw new Error(`the list did not scroll (${before} → ${after})`);
    if (process.env.DESKHAND_BENCH_SCREENSHOT) await page.screenshot({ path: process.env.DESKHAND_BENCH_SCREENSHOT });
    const frames = (await page.evaluate('(window.__stop = true, window.__frames.slice(2))')) as number[];
    frames.sort((a, b) => a - b);
    frameP95 = frames[Math.floor(frames.length * 0.95)] ?? 0;
  } finally {
    await ui.close();
  }
  return {
    open_10k_messages_ms: round(median(times)),
    open_10k_messages_noise_ms: round(halfRange(times)),
    open_10k_messages_min_ms: round(Math.min(...times)),
    open_10k_messages_max_ms: round(Math.max(...times)),
    scroll_10k_frame_p95_ms: round(frameP95),
  };
}
