/**
 * A hook's note or a Stop hook's reason arrives live as `hook.note`; the item itself is stored (hook_messages), so the
 * open transcript loads again and shows it in its place, not only after the conversation is opened again.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { MessageItem } from '../../src/shared/contract';
import type { RunEvent } from '../../src/shared/events';

interface MessagesStore {
  getState(): { items: MessageItem[]; apply(events: RunEvent[]): void };
  setState(patch: Record<string, unknown>): void;
}
// Loaded by path: the renderer is type-checked by tsconfig.web.json, not the Node project these tests belong to.
const RENDERER_MESSAGES = '../../src/renderer/state/messages.ts';
const { useMessages } = (await import(/* @vite-ignore */ RENDERER_MESSAGES)) as { useMessages: MessagesStore };

let reloads = 0;
beforeEach(() => {
  reloads = 0;
  useMessages.setState({
    conversationId: 'conv_x',
    items: [{ kind: 'assistant', id: 'm1', runId: 'run_a', text: 'Done.', at: 1 }],
    activeRun: { runId: 'run_a', status: 'running' },
    openText: {},
    storedSteps: null,
    reload: async () => {
      reloads += 1;
    },
  });
});

describe('a live hook note', () => {
  it.each([true, false])('loads the transcript again (toModel %s)', (toModel) => {
    useMessages.getState().apply([{ type: 'hook.note', runId: 'run_a', conversationId: 'conv_x', event: 'Stop', text: 'run the tests too', toModel }]);
    expect(reloads).toBe(1);
  });

  it('a text event alone does not', () => {
    useMessages.getState().apply([{ type: 'text', runId: 'run_a', delta: ' More.', step: 1 }]);
    expect(reloads).toBe(0);
  });
});
