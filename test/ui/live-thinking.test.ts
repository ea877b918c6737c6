/**
 * A reasoning model's thinking in the live transcript (issue 48): `thinking` events stream onto the reply they lead to
 * (a reply whose text follows them), never into its text; a step that goes straight to a tool call keeps its thinking
 * on a text-less reply of its own; the next step's thinking starts a new reply.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageItem } from '../../src/shared/contract';
import type { RunEvent } from '../../src/shared/events';

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

const CONV = 'conv_t';
const RUN = 'run_t';
const replies = () =>
  useMessages
    .getState()
    .items.filter((i) => i.kind === 'assistant')
    .map((i) => ({ text: (i as { text: string }).text, thinking: (i as { thinking?: string }).thinking }));

beforeEach(() => {
  useMessages.setState({ conversationId: CONV, items: [{ kind: 'user', id: 'm1', runId: RUN, text: 'Go', at: 1 }], activeRun: null, openText: {}, storedSteps: null });
  useMessages.getState().apply([{ type: 'run.started', runId: RUN, conversationId: CONV } as RunEvent]);
});

describe('thinking in the live transcript', () => {
  it('streams onto the reply its text follows, and never into the text', () => {
    const apply = (events: RunEvent[]) => useMessages.getState().apply(events);
    apply([
      { type: 'thinking', runId: RUN, delta: 'I should ', step: 1 },
      { type: 'thinking', runId: RUN, delta: 'answer.', step: 1 },
    ]);
    expect(replies()).toEqual([{ text: '', thinking: 'I should answer.' }]);
    apply([
      { type: 'text', runId: RUN, delta: 'Hello', step: 1 },
      { type: 'text', runId: RUN, delta: ' there.', step: 1 },
    ]);
    expect(replies()).toEqual([{ text: 'Hello there.', thinking: 'I should answer.' }]);
  });

  it('a step that went to a tool call keeps its thinking; the next step thinks on a reply of its own', () => {
    const apply = (events: RunEvent[]) => useMessages.getState().apply(events);
    apply([{ type: 'thinking', runId: RUN, delta: 'Plan: echo.', step: 1 }]);
    apply([{ type: 'usage', runId: RUN, step: 1, usage: { inputTokens: 1, outputTokens: 1 } } as RunEvent]);
    apply([
      { type: 'thinking', runId: RUN, delta: 'Now answer.', step: 2 },
      { type: 'text', runId: RUN, delta: 'Echoed.', step: 2 },
    ]);
    expect(replies()).toEqual([
      { text: '', thinking: 'Plan: echo.' },
      { text: 'Echoed.', thinking: 'Now answer.' },
    ]);
  });
});
