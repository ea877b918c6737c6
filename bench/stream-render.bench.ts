/**
 * stream_render_ratio: a 50,000-token reply streamed by the scripted model server through the real runtime and web
 * host into the web UI in headless Chromium. In the same run: from the moment the model server receives the request,
 * the time until the runtime has consumed the whole SSE stream, and the time until the last token is on screen.
 * ratio = rendered / consumed (target ≤ 1.2). Repeated; the median is reported with half the spread as noise.
 */
import { reply, startModelServer } from '../test/support/model-server';
import { halfRange, median, openUiHost, round } from './ui-support';

const TOKENS = 50_000;
const REPEATS = 3;
const MARK = 'END_OF_STREAM_MARK';
const WORDS = ['the', 'agent', 'reads', 'a', 'file,', 'plans', 'an', 'edit', 'and', 'asks', 'before', 'it', 'writes', '`code`', '**bold**', 'text.'];

function tokens(): string[] {
  const out: string[] = [];
  for (let i = 0; i < TOKENS - 1; i++) out.push(i % 48 === 47 ? `${WORDS[i % WORDS.length]}\n\n` : `${WORDS[i % WORDS.length]} `);
  out.push(MARK);
  return out;
}

export default async function streamRender(): Promise<Record<string, number>> {
  const script = tokens();
  const timing = { request: 0, consumed: 0 };
  const server = await startModelServer({ onRequest: () => (timing.request = Date.now()) });
  const ui = await openUiHost({ provider: { provider: 'openai-compatible', model: 'bench', baseURL: server.baseURL, apiKey: null } });
  ui.runtime.onEvent((e) => {
    // `usage` is emitted as soon as the step's stream has been read to its end.
    if (e.type === 'usage' && timing.consumed === 0) timing.consumed = Date.now();
  });
  const ratios: number[] = [];
  const consumedMs: number[] = [];
  const renderedMs: number[] = [];
  const rawMs: number[] = [];
  try {
    for (let r = 0; r < REPEATS; r++) {
      // The raw stream alone (after a warm-up request): the same payload fetched and read to its end, no SDK, no UI.
      server.enqueue(reply().spec);
      server.enqueue({ text: script });
      server.enqueue({ text: script });
      const rawStart = Date.now();
      const res = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'warm up' }] }),
      });
      await res.text();
      void rawStart;
      const rawFull = Date.now();
      const res2 = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'raw' }] }),
      });
      const body = await res2.text();
      rawMs.push(Date.now() - rawFull);
      if (!body.includes(MARK)) throw new Error('the raw stream did not carry the whole reply');

      const conv = await ui.service.createConversation({ folder: ui.work, policy: 'read-only', title: `Stream ${r + 1}` });
      const page = ui.page;
      await page.getByRole('button', { name: `Stream ${r + 1}`, exact: true }).click();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      // Page-side code as a string: this file is type-checked for Node, without DOM types.
      await page.evaluate(`(() => {
        window.__renderedAt = 0;
        const observer = new MutationObserver(() => {
          const items = document.querySelectorAll('.msg-assistant .md');
          const last = items[items.length - 1]?.lastElementChild;
          if (last?.textContent?.includes(${JSON.stringify(MARK)})) {
            window.__renderedAt = Date.now();
            observer.disconnect();
          }
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      })()`);
      timing.request = 0;
      timing.consumed = 0;
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Write a long answer');
      await box.press('Enter');
      await page.waitForFunction(() => (globalThis as unknown as { __renderedAt: number }).__renderedAt > 0, undefined, { timeout: 120_000, polling: 250 });
      const renderedAt = (await page.evaluate('window.__renderedAt')) as number;
      const consumed = timing.consumed - timing.request;
      const rendered = renderedAt - timing.request;
      consumedMs.push(consumed);
      renderedMs.push(rendered);
      ratios.push(rendered / consumed);
      await page.getByRole('button', { name: 'Send' }).waitFor();
      void conv;
    }
  } finally {
    await ui.close();
    await server.close();
  }
  return {
    stream_render_ratio: round(median(ratios), 3),
    stream_render_ratio_noise: round(halfRange(ratios), 3),
    stream_sse_consumed_ms: round(median(consumedMs)),
    stream_rendered_ms: round(median(renderedMs)),
    stream_raw_sse_read_ms: round(median(rawMs)),
    stream_tokens: TOKENS,
  };
}
