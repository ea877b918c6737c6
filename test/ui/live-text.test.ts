/**
 * Item 8 of issue 21: a turn's text showed twice live when the transcript was loaded from the store while the turn
 * streamed (a wake-up turn loads it at once: nobody typed its message). Text events say their step; the load says
 * which steps of the run it already holds, and their late events are not added a second time.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { MessageItem } from '../../src/shared/contract';
import type { RunEvent } from '../../src/shared/events';

/** The renderer's messages store (zustand), as much of it as this test drives. */
interface MessagesStore {
  getState(): { items: MessageItem[]; apply(events: RunEvent[]): void };
  setState(patch: Record<string, unknown>): void;
}
// Loaded by path: the renderer is type-checked by tsconfig.web.json, not the Node project these tests belong to.
const RENDERER_MESSAGES = '../../src/renderer/state/messages.ts';
const { useMessages } = (await import(/* @vite-ignore */ RENDERER_MESSAGES)) as { useMessages: MessagesStore };

const stored: MessageItem[] = [
  { kind: 'wake', id: 'm1', runId: 'run_a', tasks: [], at: 1 },
  { kind: 'assistant', id: 'm2', runId: 'run_a', text: 'The build passed.', at: 2 },
];

beforeEach(() => {
  useMessages.setState({ conversationId: 'conv_x', items: stored, activeRun: { runId: 'run_a', status: 'running' }, openText: {}, storedSteps: { runId: 'run_a', step: 1 } });
});

const text = (delta: string, step: number) => ({ type: 'text' as const, runId: 'run_a', delta, step });
const texts = () => useMessages.getState().items.filter((i) => i.kind === 'assistant').map((i) => (i as { text: string }).text);

describe('live text after a load from the store', () => {
  it('adds the late events of a stored step nothing, and streams the next step', () => {
    useMessages.getState().apply([{ type: 'run.started', conversationId: 'conv_x', runId: 'run_a', resumed: true }]);
    useMessages.getState().apply([text('The build ', 1), text('passed.', 1)]);
    expect(texts()).toEqual(['The build passed.']);
    useMessages.getState().apply([text('Next I will deploy.', 2)]);
    expect(texts()).toEqual(['The build passed.', 'Next I will deploy.']);
  });

  it('still shows every event of a run the load knew nothing of', () => {
    useMessages.setState({ storedSteps: null });
    useMessages.getState().apply([text('Hello', 1)]);
    expect(texts()).toEqual(['The build passed.', 'Hello']);
  });
});

describe('live text of a retried step (issue 48: a stream cut mid-reply)', () => {
  it('drops what the failed attempt streamed, shows a notice line, then the retried reply once', () => {
    useMessages.setState({ storedSteps: null });
    useMessages.getState().apply([text('Hello, wor', 2)]);
    useMessages.getState().apply([{ type: 'run.retry', runId: 'run_a', attempt: 1, delayMs: 1500, reason: 'The connection to the model API broke mid-stream: terminated.' }]);
    useMessages.getState().apply([text('Hello, ', 2), text('world.', 2)]);
    expect(texts()).toEqual(['The build passed.', 'Hello, world.']);
    const notices = useMessages.getState().items.filter((i) => i.kind === 'error');
    expect(notices).toEqual([expect.objectContaining({ severity: 'notice', runId: 'run_a', text: 'The connection to the model API broke mid-stream: terminated. Retrying in 1.5 s (attempt 1).' })]);
  });

  it('a retry before any text (an overloaded provider) adds only the notice; earlier steps stay', () => {
    useMessages.getState().apply([{ type: 'run.retry', runId: 'run_a', attempt: 1, delayMs: 0, reason: 'The model API is overloaded (529): Overloaded. Switching to the fallback model small.' }]);
    expect(texts()).toEqual(['The build passed.']);
    expect(useMessages.getState().items.at(-1)).toMatchObject({ kind: 'error', severity: 'notice', text: expect.stringMatching(/fallback model small\. Retrying \(attempt 1\)\.$/) });
  });
});
