/**
 * Issue 54: a long reply streamed into the transcript renders the same as the same reply loaded whole. The reply goes
 * through the messages store in bursts of uneven size (as the web host batches them), and every frame's text is
 * rendered by the transcript's Markdown component — whose chunks skip react-markdown for plain prose, for prose with
 * simple `code` and **strong**, and for an open code fence. Each frame must equal the same text with every chunk
 * through react-markdown (what the fast paths stand in for, half-written syntax included), and the last frame must
 * equal the reply loaded whole from the store.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageItem } from '../../src/shared/contract';
import type { RunEvent } from '../../src/shared/events';
import { Markdown, ParsedChunk } from '../../src/renderer/components/common/Markdown';
import { splitChunks } from '../../src/shared/markdown/parse';
import { inlineParagraph, plainParagraph } from '../../src/shared/markdown/plain';

vi.mock('../../src/renderer/api/client', () => ({
  api: () => ({ getMessages: () => new Promise(() => undefined) }),
  errorText: (err: unknown) => String(err),
}));

interface MessagesStore {
  getState(): { items: MessageItem[]; apply(events: RunEvent[]): void };
  setState(patch: Record<string, unknown>): void;
}
const RENDERER_MESSAGES = '../../src/renderer/state/messages.ts';
const { useMessages } = (await import(/* @vite-ignore */ RENDERER_MESSAGES)) as { useMessages: MessagesStore };

const CONV = 'conv_s';
const RUN = 'run_s';
const WORDS = ['the', 'agent', 'reads', 'a', 'file,', 'plans', 'an', 'edit', 'and', 'asks', 'before', 'it', 'writes', '`code`', '**bold**', 'text.', '*em*', '`a|b`', '**two words**', '[link](https://example.com)', '<b>', '&amp;', 'x_y', '~~gone~~'];
const BLOCKS = ['## A heading', '- a list item with `code`\n- and **bold**', '1. first\n2. second', '> a quote with **bold**', '```ts\nconst x = 1;\nreturn x * 2;\n```', '| a | b |\n|---|---|\n| 1 | `2` |', '---'];

/** A long reply: paragraphs of the words above, with blocks of every kind between them. */
function reply(): string {
  let seed = 54;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >>> 8) % n;
  };
  const parts: string[] = [];
  for (let p = 0; p < 160; p++) {
    const words: string[] = [];
    for (let w = 8 + rand(40); w > 0; w--) words.push(WORDS[rand(p % 3 === 0 ? WORDS.length : 16)]!);
    parts.push(words.join(' '));
    if (p % 7 === 6) parts.push(BLOCKS[rand(BLOCKS.length)]!);
  }
  return parts.join('\n\n');
}

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));
/** The same text with every chunk through react-markdown: what the transcript showed before the fast paths. */
const parsedOnly = (text: string) => `<div class="md">${splitChunks(text).map((c) => renderToStaticMarkup(createElement(ParsedChunk, { source: c }))).join('')}</div>`;
const liveText = () => (useMessages.getState().items.find((i) => i.kind === 'assistant') as { text: string } | undefined)?.text ?? '';

beforeEach(() => {
  useMessages.setState({ conversationId: CONV, items: [{ kind: 'user', id: 'm1', runId: RUN, text: 'Go', at: 1 }], activeRun: { runId: RUN, status: 'running' }, openText: {}, storedSteps: null });
  useMessages.getState().apply([{ type: 'run.started', conversationId: CONV, runId: RUN, resumed: false }]);
});

describe('a long streamed reply', () => {
  it('renders every frame as react-markdown would, and ends as the reply loaded whole', () => {
    const whole = reply();
    expect(whole.length).toBeGreaterThan(15_000);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return (seed >>> 8) % n;
    };
    let at = 0;
    let frames = 0;
    while (at < whole.length) {
      // A frame's batch: a few events of a few characters to a few hundred (a burst joined by the web host).
      const events: RunEvent[] = [];
      for (let e = 1 + rand(4); e > 0 && at < whole.length; e--) {
        const n = 1 + rand(rand(8) === 0 ? 400 : 12);
        events.push({ type: 'text', runId: RUN, delta: whole.slice(at, at + n), step: 1 });
        at += n;
      }
      useMessages.getState().apply(events);
      const shown = liveText();
      expect(shown).toBe(whole.slice(0, at));
      // What this frame changed: its last chunks (the earlier ones were checked when they were last, and are
      // settled). The whole text is compared at the end.
      const tail = splitChunks(shown).slice(-2).join('\n\n');
      expect(render(tail), `frame ${++frames} (${shown.length} chars)`).toBe(parsedOnly(tail));
    }
    useMessages.getState().apply([{ type: 'usage', runId: RUN, step: 1, usage: { inputTokens: 1, outputTokens: 1 } } as RunEvent]);
    expect(frames).toBeGreaterThan(50);
    // The reply loaded whole (a stored message, as getMessages gives it) renders the same as the streamed one.
    expect(render(liveText())).toBe(render(whole));
    expect(render(whole)).toBe(parsedOnly(whole));
    // The fast paths were taken (a stand-in that never runs proves nothing): most chunks skip the parser, both kinds.
    const chunks = splitChunks(whole);
    const inline = chunks.filter((c) => plainParagraph(c) === null && inlineParagraph(c) !== null).length;
    const plain = chunks.filter((c) => plainParagraph(c) !== null).length;
    expect(inline).toBeGreaterThan(chunks.length / 3);
    expect(plain).toBeGreaterThan(5);
  });
});
