/**
 * The open conversation: the projection main sent (getMessages) plus live run events applied on top, so streamed text,
 * tool calls, approvals and results appear as they happen. Events arrive in batches; one batch is one state update.
 */
import { create } from 'zustand';
import type { MessageItem, ToolItem } from '../../shared/contract';
import type { TurnUsage } from '../../shared/contract/chat';
import { OUTPUT_PREVIEW_CHARS } from '../../shared/contract/names';
import type { RunEvent } from '../../shared/events';
import { api, errorText } from '../api/client';

export interface ActiveRun {
  runId: string;
  status: 'running' | 'parked';
}

interface MessagesState {
  conversationId: string | null;
  items: MessageItem[];
  activeRun: ActiveRun | null;
  loading: boolean;
  error: string | null;
  /** Bumped when the list is replaced wholesale (open, reload), so the view can jump to the end. */
  generation: number;
  /** The live assistant text item receiving deltas, per run. */
  openText: Record<string, string>;
  /** The conversation's tokens and cost (from the last load). */
  usage: TurnUsage | null;
  /** Bumped when the person sends a message from this window: the transcript goes to its end. */
  sent: number;
  markSent(): void;
  /** Steps of this run already in `items` (loaded from the store): their live text events are not added again. */
  storedSteps: { runId: string; step: number } | null;
  open(conversationId: string | null): Promise<void>;
  reload(): Promise<void>;
  addLocalUser(text: string): string;
  /**
   * The page's copy of a sent message becomes the stored one (its id `m123`: Edit works at once), of the run the send
   * started (its `run.started` then finds it, whichever of the two came first).
   */
  settleLocalUser(localId: string, messageId: string, runId?: string): void;
  removeItem(id: string): void;
  setActiveRun(run: ActiveRun | null): void;
  apply(events: RunEvent[]): void;
  /** Loads what the store adds after the fact (tokens and cost, how calls ended, who cleared them) without replacing items. */
  refreshFigures(): Promise<void>;
}

/**
 * The stored figures patched onto the live items: tool cards by id; each run's turn usage onto its last reply (a live
 * reply has a live id). Nothing is added or removed, so the list keeps its place.
 */
export function patchFigures(live: MessageItem[], stored: MessageItem[]): MessageItem[] {
  const byId = new Map(stored.map((i) => [i.id, i]));
  const usageOfRun = new Map<string, NonNullable<Extract<MessageItem, { kind: 'assistant' }>['usage']>>();
  for (const i of stored) if (i.kind === 'assistant' && i.usage && i.runId) usageOfRun.set(i.runId, i.usage);
  const lastReply = new Map<string, number>();
  live.forEach((i, idx) => {
    if (i.kind === 'assistant' && i.runId) lastReply.set(i.runId, idx);
  });
  return live.map((it, idx) => {
    if (it.kind === 'tool') {
      const st = byId.get(it.id);
      return st && st.kind === 'tool' ? { ...it, status: st.status, durationMs: st.durationMs, cleared: st.cleared ?? null, preview: st.preview ?? null } : it;
    }
    if (it.kind === 'assistant' && it.runId && lastReply.get(it.runId) === idx && usageOfRun.has(it.runId)) return { ...it, usage: usageOfRun.get(it.runId)! };
    return it;
  });
}

/** runId → conversationId, learnt from run.started and from getMessages. */
const runConversation = new Map<string, string>();
/** The step each live assistant text item streams (its text events say it): a load keeps those it has not stored. */
const liveStep = new Map<string, number>();

type Loaded = Pick<MessagesState, 'items' | 'activeRun' | 'storedSteps'>;

/**
 * A load's items, plus what the load could not have:
 * - the text of the active run's step that was still streaming when the store was read (a step is stored when it
 *   ends). Without this, a load landing in the middle of a fast stream dropped the text shown so far and the rest of the
 *   step started a new reply with only its end;
 * - the person's own messages still on their way (`local:` items, not yet answered by the send). A load asked before
 *   the send (opening a conversation, then typing at once) answered after it and dropped the message; the run's start
 *   then found no message of its own and asked for the whole transcript again. A local message the load already holds
 *   (a user item of the same text, stored since, the page did not have) is not kept twice.
 */
export function keepLiveText(current: Pick<MessagesState, 'items' | 'openText'>, loaded: Loaded): { items: MessageItem[]; openText: Record<string, string> } {
  const local = pendingLocal(current.items, loaded.items);
  const run = loaded.activeRun?.runId;
  const stored = run && loaded.storedSteps?.runId === run ? loaded.storedSteps.step : null;
  if (!run || stored === null) return { items: local.length ? [...loaded.items, ...local] : loaded.items, openText: {} };
  const live = current.items.filter((i) => i.kind === 'assistant' && i.runId === run && (liveStep.get(i.id) ?? 0) > stored && !loaded.items.some((l) => l.id === i.id));
  if (!live.length && !local.length) return { items: loaded.items, openText: {} };
  const open = current.openText[run];
  return { items: [...loaded.items, ...local, ...live], openText: open && live.some((i) => i.id === open) ? { [run]: open } : {} };
}

/** The page's unanswered `local:` messages a load lacks (see keepLiveText). */
function pendingLocal(current: MessageItem[], loaded: MessageItem[]): MessageItem[] {
  const local = current.filter((i) => i.kind === 'user' && i.id.startsWith('local:'));
  if (!local.length) return local;
  const known = new Set(current.map((i) => i.id));
  const fresh = loaded.filter((l): l is Extract<MessageItem, { kind: 'user' }> => l.kind === 'user' && !known.has(l.id));
  return local.filter((i) => {
    const mine = i as Extract<MessageItem, { kind: 'user' }>;
    // Stored after the page added it (a second's grace for the two clocks' rounding), never an older message of the same words.
    const at = fresh.findIndex((l) => l.text === mine.text && l.at >= mine.at - 1000);
    if (at === -1) return true;
    fresh.splice(at, 1);
    return false;
  });
}
let localId = 0;
let loadSeq = 0;

export function conversationOfRun(runId: string): string | undefined {
  return runConversation.get(runId);
}

export const useMessages = create<MessagesState>((set, get) => ({
  conversationId: null,
  items: [],
  activeRun: null,
  loading: false,
  error: null,
  generation: 0,
  openText: {},
  usage: null,
  storedSteps: null,
  sent: 0,
  markSent: () => set((s) => ({ sent: s.sent + 1 })),

  async open(conversationId) {
    const seq = ++loadSeq;
    if (conversationId !== get().conversationId) liveStep.clear();
    set((s) => ({ conversationId, items: conversationId === s.conversationId ? s.items : [], activeRun: null, loading: !!conversationId, error: null, openText: {} }));
    if (!conversationId) return;
    try {
      const result = await api().getMessages({ conversationId });
      if (seq !== loadSeq) return;
      if (result.activeRun) runConversation.set(result.activeRun.runId, conversationId);
      const storedSteps = result.storedSteps ?? null;
      set((s) => ({
        ...(s.conversationId === conversationId ? keepLiveText(s, { items: result.items, activeRun: result.activeRun, storedSteps }) : { items: result.items, openText: {} }),
        activeRun: result.activeRun,
        loading: false,
        generation: s.generation + 1,
        usage: result.usage ?? null,
        storedSteps,
      }));
    } catch (err) {
      if (seq !== loadSeq) return;
      set({ loading: false, error: errorText(err) });
    }
  },

  async reload() {
    const id = get().conversationId;
    if (!id) return;
    const seq = ++loadSeq;
    try {
      const result = await api().getMessages({ conversationId: id });
      if (seq !== loadSeq || get().conversationId !== id) return;
      if (result.activeRun) runConversation.set(result.activeRun.runId, id);
      const storedSteps = result.storedSteps ?? null;
      set((s) => ({ ...keepLiveText(s, { items: result.items, activeRun: result.activeRun, storedSteps }), activeRun: result.activeRun, usage: result.usage ?? null, storedSteps }));
    } catch (err) {
      if (seq === loadSeq) set({ error: errorText(err) });
    }
  },

  addLocalUser(text) {
    const id = `local:${++localId}`;
    set((s) => ({ items: [...s.items, { kind: 'user', id, runId: null, text, at: Date.now() }], sent: s.sent + 1 }));
    return id;
  },

  settleLocalUser(localId, messageId, runId) {
    set((s) => {
      if (!s.items.some((i) => i.id === localId)) return {};
      // A load that answered after the message was stored already shows it under its own id: the local copy goes.
      if (s.items.some((i) => i.id === messageId)) return { items: s.items.filter((i) => i.id !== localId) };
      return { items: s.items.map((i) => (i.id === localId && i.kind === 'user' ? { ...i, id: messageId, runId: i.runId ?? runId ?? null } : i)) };
    });
  },

  removeItem(id) {
    set((s) => ({ items: s.items.filter((i) => i.id !== id) }));
  },

  setActiveRun(run) {
    if (run) {
      const conv = get().conversationId;
      if (conv) runConversation.set(run.runId, conv);
    }
    set({ activeRun: run });
  },

  apply(events) {
    let needsReload = false;
    let needsFigures = false;
    set((state) => {
      let items = state.items;
      let copied = false;
      let activeRun = state.activeRun;
      let openText = state.openText;
      const mutable = () => {
        if (!copied) {
          items = items.slice();
          copied = true;
        }
        return items;
      };
      const find = (id: string): number => {
        for (let i = items.length - 1; i >= 0; i--) if (items[i]!.id === id) return i;
        return -1;
      };
      const patchTool = (runId: string, callId: string, patch: (t: ToolItem) => ToolItem) => {
        const i = find(`tc:${runId}:${callId}`);
        if (i === -1) return;
        const item = items[i]!;
        if (item.kind !== 'tool') return;
        mutable()[i] = patch(item);
      };
      const closeText = (runId: string) => {
        if (openText[runId]) {
          openText = { ...openText };
          delete openText[runId];
        }
      };

      for (const e of events) {
        if (e.type === 'run.started') runConversation.set(e.runId, e.conversationId);
        const conv = 'conversationId' in e ? e.conversationId : runConversation.get(e.runId);
        if (!conv || conv !== state.conversationId) continue;
        switch (e.type) {
          case 'run.started': {
            activeRun = { runId: e.runId, status: 'running' };
            // Our own message, already settled with this run (the send's answer came before this event): nothing to do.
            if (!e.resumed && !items.some((i) => i.kind === 'user' && i.runId === e.runId)) {
              // Our own message is the last local item without a run; someone else's (another window) needs a reload.
              const local = find(items.findLast((i) => i.kind === 'user' && i.runId === null && i.id.startsWith('local:'))?.id ?? '');
              if (local === -1) needsReload = true;
              else mutable()[local] = { ...(items[local] as Extract<MessageItem, { kind: 'user' }>), runId: e.runId };
            }
            break;
          }
          case 'text': {
            // Text of a step the last load already brought from the store (a reload raced the stream): shown once.
            if (e.step !== undefined && state.storedSteps?.runId === e.runId && e.step <= state.storedSteps.step) break;
            const openId = openText[e.runId];
            const i = openId ? find(openId) : -1;
            const item = i === -1 ? undefined : items[i];
            if (item && item.kind === 'assistant') {
              mutable()[i] = { ...item, text: item.text + e.delta };
            } else {
              const id = `live:${e.runId}:${++localId}`;
              if (e.step !== undefined) liveStep.set(id, e.step);
              mutable().push({ kind: 'assistant', id, runId: e.runId, text: e.delta, at: Date.now() });
              openText = { ...openText, [e.runId]: id };
            }
            break;
          }
          case 'thinking': {
            // A reasoning model's thinking: on the reply it leads to (the open one, or a new one whose text follows).
            if (e.step !== undefined && state.storedSteps?.runId === e.runId && e.step <= state.storedSteps.step) break;
            const openId = openText[e.runId];
            const i = openId ? find(openId) : -1;
            const item = i === -1 ? undefined : items[i];
            if (item && item.kind === 'assistant' && !item.text) {
              mutable()[i] = { ...item, thinking: (item.thinking ?? '') + e.delta };
            } else {
              const id = `live:${e.runId}:${++localId}`;
              if (e.step !== undefined) liveStep.set(id, e.step);
              mutable().push({ kind: 'assistant', id, runId: e.runId, text: '', thinking: e.delta, at: Date.now() });
              openText = { ...openText, [e.runId]: id };
            }
            break;
          }
          case 'usage':
            closeText(e.runId);
            break;
          case 'run.retry': {
            // The step starts again: the text its failed attempt streamed is void (the retry streams it anew), and
            // a line says why and when.
            const openId = openText[e.runId];
            const i = openId ? find(openId) : -1;
            if (i !== -1) mutable().splice(i, 1);
            closeText(e.runId);
            const wait = e.delayMs > 0 ? ` Retrying in ${Math.round(e.delayMs / 100) / 10} s (attempt ${e.attempt}).` : ` Retrying (attempt ${e.attempt}).`;
            mutable().push({ kind: 'error', id: `retry:${e.runId}:${++localId}`, runId: e.runId, text: `${e.reason}${wait}`, severity: 'notice', at: Date.now() });
            break;
          }
          case 'tool.call': {
            closeText(e.runId);
            const id = `tc:${e.runId}:${e.callId}`;
            if (find(id) !== -1) break;
            mutable().push({
              kind: 'tool',
              id,
              runId: e.runId,
              callId: e.callId,
              tool: e.tool,
              args: e.args,
              status: 'pending',
              risk: null,
              reasons: [],
              output: null,
              outputChars: 0,
              durationMs: null,
              approvalId: null,
              summary: e.summary ?? null,
              at: Date.now(),
            });
            break;
          }
          case 'tool.decision':
            patchTool(e.runId, e.callId, (t) => ({
              ...t,
              risk: e.risk,
              reasons: e.reasons,
              status: e.decision === 'allow' ? 'running' : e.decision === 'deny' ? 'denied' : 'awaiting_approval',
            }));
            break;
          case 'approval.requested':
            patchTool(e.runId, e.callId, (t) => ({ ...t, status: 'awaiting_approval', approvalId: e.approvalId, risk: e.risk, reasons: e.reasons }));
            break;
          case 'input.requested':
            // A question, a file pick…: the call waits for the person's answer like an approval.
            patchTool(e.runId, e.callId, (t) => ({ ...t, status: 'awaiting_approval', approvalId: e.requestId }));
            break;
          case 'approval.decided': {
            const i = items.findLastIndex((it) => it.kind === 'tool' && it.approvalId === e.approvalId);
            if (i !== -1) {
              const t = items[i] as ToolItem;
              mutable()[i] = { ...t, approvalId: null, status: e.decision === 'approved' ? 'running' : 'denied' };
            }
            break;
          }
          case 'tool.output':
            patchTool(e.runId, e.callId, (t) => {
              const output = (t.output ?? '') + e.chunk;
              return { ...t, status: 'running', output: output.slice(0, OUTPUT_PREVIEW_CHARS), outputChars: t.outputChars + e.chunk.length };
            });
            break;
          case 'tool.result':
            // Calls refused before they were announced (unknown tool, invalid arguments) have no card yet: the
            // stored projection has them, with their arguments.
            if (find(`tc:${e.runId}:${e.callId}`) === -1) needsReload = true;
            // How a command ended (kept in the background, stopped) is in the store, not in the event.
            if (e.tool === 'execute_command' && e.status === 'ok') needsFigures = true;
            patchTool(e.runId, e.callId, (t) => ({
              ...t,
              status: e.status,
              output: e.output.slice(0, OUTPUT_PREVIEW_CHARS),
              outputChars: e.output.length,
              durationMs: e.durationMs,
              ...(e.summary ? { summary: e.summary } : {}),
            }));
            break;
          case 'context.compaction':
            // The notice before it runs (the summary call takes a while); the record (what was dropped and kept, the
            // summary) is a projection of the store, shown once it is stored, in the notice's place.
            if (e.phase === 'started') {
              mutable().push({ kind: 'error', id: `compacting:${e.runId}:${++localId}`, runId: e.runId, text: `Compacting the context: ${e.droppedMessages} earlier messages (about ${e.tokensBefore.toLocaleString('en-US')} tokens in all) are being summarized for the model. Your own messages stay word for word; this transcript keeps everything.`, severity: 'notice', at: Date.now() });
            }
            if (e.phase === 'done') needsReload = true;
            break;
          case 'hook.note':
            // A Stop hook's reason or a hook's note is stored as a transcript item; it shows in its place on reload.
            needsReload = true;
            break;
          case 'run.parked':
            activeRun = { runId: e.runId, status: 'parked' };
            closeText(e.runId);
            break;
          case 'run.finished':
            closeText(e.runId);
            if (activeRun?.runId === e.runId) activeRun = null;
            // Stops and failures change rows the events do not describe one by one (denied approvals, error text).
            if (e.status !== 'finished') needsReload = true;
            // A finished turn brings its tokens and cost, and who cleared each call (patched in place).
            else needsFigures = true;
            break;
          default:
            break;
        }
      }
      return copied || activeRun !== state.activeRun || openText !== state.openText ? { items, activeRun, openText } : {};
    });
    if (needsReload) void get().reload();
    else if (needsFigures) void get().refreshFigures();
  },

  async refreshFigures() {
    const id = get().conversationId;
    if (!id) return;
    try {
      const result = await api().getMessages({ conversationId: id });
      if (get().conversationId !== id) return;
      set((s) => ({ items: patchFigures(s.items, result.items), usage: result.usage ?? null }));
    } catch {
      // figures are a nicety; the next load brings them
    }
  },
}));
