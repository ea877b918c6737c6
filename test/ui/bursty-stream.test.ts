/**
 * Item 1 of issue 52: with a model streaming fast (chunks 2 ms apart) and text followed by a tool call, the live
 * transcript kept only the end of the text ("seconds." for "Working on the first message for a few seconds."), and it
 * stayed so after the run ended. The person's message is settled (the send's answer comes before the run's events: the
 * web host answers at once and sends events once per tick), `run.started` then found no local message and loaded the
 * transcript again while the step streamed; the load (taken before the step was stored) replaced the items and dropped
 * the text already shown, and the rest of the deltas started a new reply. This drives the messages store through that
 * exact order, with the load answered in the middle of a burst.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageItem } from '../../src/shared/contract';
import type { RunEvent } from '../../src/shared/events';

interface Loaded {
  items: MessageItem[];
  activeRun: { runId: string; status: 'running' | 'parked' } | null;
  storedSteps: { runId: string; step: number } | null;
}
/** getMessages answers are held until the test releases them, so a load can land in the middle of a burst. */
const loads: { conversationId: string; resolve(r: Loaded): void }[] = [];
vi.mock('../../src/renderer/api/client', () => ({
  api: () => ({
    getMessages: ({ conversationId }: { conversationId: string }) => new Promise<Loaded>((resolve) => loads.push({ conversationId, resolve })),
  }),
  errorText: (err: unknown) => String(err),
}));

interface MessagesStore {
  getState(): {
    items: MessageItem[];
    apply(events: RunEvent[]): void;
    addLocalUser(text: string): string;
    settleLocalUser(localId: string, messageId: string, runId?: string): void;
    setActiveRun(run: { runId: string; status: 'running' } | null): void;
  };
  setState(patch: Record<string, unknown>): void;
}
const RENDERER_MESSAGES = '../../src/renderer/state/messages.ts';
const { useMessages } = (await import(/* @vite-ignore */ RENDERER_MESSAGES)) as { useMessages: MessagesStore };

const CONV = 'conv_b';
const RUN = 'run_b';
const SENTENCE = 'Working on the first message for a few seconds.';
/** The sentence in bursts of a few characters, as a fast local server sends it. */
const bursts = SENTENCE.match(/.{1,3}/gs)!;

const text = (delta: string, step = 1): RunEvent => ({ type: 'text', runId: RUN, delta, step });
const replies = () => useMessages.getState().items.filter((i) => i.kind === 'assistant').map((i) => (i as { text: string }).text);
const user: MessageItem = { kind: 'user', id: 'm1', runId: RUN, text: 'Go', at: 1 };

beforeEach(() => {
  loads.length = 0;
  useMessages.setState({ conversationId: CONV, items: [], activeRun: null, openText: {}, storedSteps: null });
});

/** The composer's order: local message, the send's answer (settled), then the run's events. */
function send(): void {
  const m = useMessages.getState();
  const local = m.addLocalUser('Go');
  m.settleLocalUser(local, 'm1', RUN);
  m.setActiveRun({ runId: RUN, status: 'running' });
  m.apply([{ type: 'run.started', conversationId: CONV, runId: RUN, resumed: false }]);
}

async function answerLoad(snapshot: Loaded): Promise<void> {
  for (const l of loads.splice(0)) l.resolve(snapshot);
  await new Promise((r) => setTimeout(r, 0));
}

describe('a fast stream before a tool call', () => {
  it('keeps the whole text when the send was answered before run.started', async () => {
    send();
    for (const b of bursts) useMessages.getState().apply([text(b)]);
    // Whatever the store was asked meanwhile, answered with the step not stored yet.
    await answerLoad({ items: [user], activeRun: { runId: RUN, status: 'running' }, storedSteps: { runId: RUN, step: 0 } });
    useMessages.getState().apply([{ type: 'usage', runId: RUN, step: 1, usage: { inputTokens: 1, outputTokens: 1 } }]);
    useMessages.getState().apply([{ type: 'tool.call', runId: RUN, callId: 'c1', tool: 'list_directory', args: {} } as RunEvent]);
    expect(replies()).toEqual([SENTENCE]);
  });

  it('keeps the text already shown when a load taken before the step was stored lands in the middle of the burst', async () => {
    useMessages.setState({ items: [user], activeRun: { runId: RUN, status: 'running' } });
    // A reload asked for by something else (another window, a composition change) while the step streams.
    const reload = (useMessages.getState() as unknown as { reload(): Promise<void> }).reload();
    const half = Math.floor(bursts.length / 2);
    for (const b of bursts.slice(0, half)) useMessages.getState().apply([text(b)]);
    await answerLoad({ items: [user], activeRun: { runId: RUN, status: 'running' }, storedSteps: { runId: RUN, step: 0 } });
    await reload;
    for (const b of bursts.slice(half)) useMessages.getState().apply([text(b)]);
    useMessages.getState().apply([{ type: 'usage', runId: RUN, step: 1, usage: { inputTokens: 1, outputTokens: 1 } }]);
    useMessages.getState().apply([{ type: 'tool.call', runId: RUN, callId: 'c1', tool: 'list_directory', args: {} } as RunEvent]);
    expect(replies()).toEqual([SENTENCE]);
    expect(useMessages.getState().items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool']);
  });

  it('shows a step once when the load already has it stored (its late deltas are not added again)', async () => {
    useMessages.setState({ items: [user], activeRun: { runId: RUN, status: 'running' } });
    const reload = (useMessages.getState() as unknown as { reload(): Promise<void> }).reload();
    for (const b of bursts) useMessages.getState().apply([text(b)]);
    const stored: MessageItem = { kind: 'assistant', id: 'm2', runId: RUN, text: SENTENCE, at: 2 };
    await answerLoad({ items: [user, stored], activeRun: { runId: RUN, status: 'running' }, storedSteps: { runId: RUN, step: 1 } });
    await reload;
    useMessages.getState().apply([text(' late', 1), text('Next step.', 2)]);
    expect(replies()).toEqual([SENTENCE, 'Next step.']);
  });
});

/**
 * The flake of e2e/stream-burst (a real race): a conversation opened and a message sent at once. The open's load was
 * asked before the send and answered after it; it replaced the items and dropped the person's message, and the run's
 * start then found no message of its own and asked for the whole transcript again.
 */
describe('a message sent while the conversation is still loading', () => {
  const open = () => (useMessages.getState() as unknown as { open(id: string | null): Promise<void> }).open(CONV);
  const users = () => useMessages.getState().items.filter((i) => i.kind === 'user').map((i) => `${i.id} ${(i as { text: string }).text}`);

  it('keeps the message when the load answers before it was stored, and the run start asks for nothing', async () => {
    useMessages.setState({ conversationId: null, items: [] });
    const opened = open();
    const local = useMessages.getState().addLocalUser('Go');
    await answerLoad({ items: [], activeRun: null, storedSteps: null });
    await opened;
    expect(users()).toEqual([`${local} Go`]);
    useMessages.getState().apply([{ type: 'run.started', conversationId: CONV, runId: RUN, resumed: false }]);
    expect(loads).toHaveLength(0);
    useMessages.getState().settleLocalUser(local, 'm1', RUN);
    for (const b of bursts) useMessages.getState().apply([text(b)]);
    expect(users()).toEqual(['m1 Go']);
    expect(replies()).toEqual([SENTENCE]);
  });

  it('shows the message once when the load answers after it was stored', async () => {
    useMessages.setState({ conversationId: null, items: [] });
    const opened = open();
    const local = useMessages.getState().addLocalUser('Go');
    await answerLoad({ items: [{ ...user, at: Date.now() }], activeRun: { runId: RUN, status: 'running' }, storedSteps: { runId: RUN, step: 0 } });
    await opened;
    expect(users()).toEqual(['m1 Go']);
    useMessages.getState().settleLocalUser(local, 'm1', RUN);
    useMessages.getState().apply([{ type: 'run.started', conversationId: CONV, runId: RUN, resumed: false }]);
    expect(users()).toEqual(['m1 Go']);
    expect(loads).toHaveLength(0);
  });

  it('an older message of the same words is not taken for the one on its way; the settle then removes no stored one', async () => {
    useMessages.setState({ conversationId: null, items: [] });
    const opened = open();
    const local = useMessages.getState().addLocalUser('Go');
    await answerLoad({ items: [{ kind: 'user', id: 'm0', runId: 'run_old', text: 'Go', at: Date.now() - 60_000 }], activeRun: null, storedSteps: null });
    await opened;
    expect(users()).toEqual(['m0 Go', `${local} Go`]);
    useMessages.getState().settleLocalUser(local, 'm1', RUN);
    expect(users()).toEqual(['m0 Go', 'm1 Go']);
  });

  it('a settle whose stored message a load already brought drops the local copy', () => {
    useMessages.setState({ items: [user] });
    const local = useMessages.getState().addLocalUser('Go again');
    useMessages.setState({ items: [...useMessages.getState().items, { kind: 'user', id: 'm3', runId: 'run_c', text: 'Go again', at: Date.now() }] });
    useMessages.getState().settleLocalUser(local, 'm3', 'run_c');
    expect(users()).toEqual(['m1 Go', 'm3 Go again']);
  });
});
