/**
 * Calling a peer (ask_peer): the SDK's client (@a2a-js/sdk/client) against the peer's endpoint, its agent card fetched
 * first, the token the person saved for them as `Authorization: Bearer`. Streams the task and returns its final text;
 * an aborted call cancels the task on the peer's side.
 */
import { randomUUID } from 'node:crypto';
import type { PeerBook } from './peer-book';

export interface PeerAnswer {
  /** The peer's final text (their answer, or what they said went wrong). */
  text: string;
  /** The task's final state in words: completed, failed, rejected, canceled, input-required, auth-required. */
  state: string;
  taskId: string | null;
  contextId: string | null;
}

/** What the peers family may do: list the peers it can call and ask one. No token ever leaves through here. */
export interface PeerCaller {
  /** Enabled peers with an endpoint, with their tier (for the model's list). */
  callable(): { name: string; endpoint: string }[];
  /** `taskId`: continue that task (answering the peer's question back); its `contextId` with it. */
  ask(peer: string, message: string, opts: { signal: AbortSignal; contextId?: string; taskId?: string }): Promise<PeerAnswer>;
}

const STATE_WORDS: Record<number, string> = { 1: 'submitted', 2: 'working', 3: 'completed', 4: 'failed', 5: 'canceled', 6: 'input-required', 7: 'rejected', 8: 'auth-required' };

export class A2aPeerCaller implements PeerCaller {
  constructor(private readonly book: Pick<PeerBook, 'list' | 'require' | 'outboundToken'>) {}

  callable(): { name: string; endpoint: string }[] {
    return this.book.list().filter((p) => p.enabled && p.endpoint).map((p) => ({ name: p.name, endpoint: p.endpoint! }));
  }

  async ask(peerName: string, message: string, opts: { signal: AbortSignal; contextId?: string; taskId?: string }): Promise<PeerAnswer> {
    const peer = this.book.require(peerName);
    if (!peer.enabled) throw new Error(`Peer ${peer.name} is disabled (deskhand peers enable ${peer.name}).`);
    if (!peer.endpoint) throw new Error(`Peer ${peer.name} has no endpoint to call (deskhand peers add with --endpoint).`);
    const token = await this.book.outboundToken(peer.name);
    const { ClientFactory } = await import('@a2a-js/sdk/client');
    const { Role } = await import('@a2a-js/sdk');
    const base = peer.endpoint.replace(/\/+$/, '');
    const client = await new ClientFactory().createFromUrl(base);
    const request = {
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: opts.contextId ?? '',
        taskId: opts.taskId ?? '',
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'text' as const, value: message }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    };
    const options = { signal: opts.signal, ...(token ? { serviceParameters: { Authorization: `Bearer ${token}` } } : {}) };
    let text = '';
    let state = 'unknown';
    let taskId: string | null = null;
    let contextId: string | null = null;
    try {
      for await (const event of client.sendMessageStream(request, options)) {
        const p = event.payload;
        if (!p) continue;
        if (p.$case === 'message') {
          text = partsText(p.value.parts);
          state = 'completed';
          contextId = p.value.contextId || contextId;
        } else if (p.$case === 'task') {
          taskId = p.value.id;
          contextId = p.value.contextId;
          if (p.value.status) state = STATE_WORDS[p.value.status.state] ?? state;
          const t = partsText(p.value.status?.message?.parts ?? []);
          if (t) text = t;
        } else if (p.$case === 'statusUpdate') {
          taskId = p.value.taskId || taskId;
          if (p.value.status) state = STATE_WORDS[p.value.status.state] ?? state;
          const t = partsText(p.value.status?.message?.parts ?? []);
          if (t) text = t;
        } else if (p.$case === 'artifactUpdate') {
          const t = partsText(p.value.artifact?.parts ?? []);
          if (t) text = text ? `${text}\n${t}` : t;
        }
      }
    } catch (err) {
      if (opts.signal.aborted && taskId) await client.cancelTask({ tenant: '', id: taskId, metadata: undefined } as never, { ...(token ? { serviceParameters: { Authorization: `Bearer ${token}` } } : {}) }).catch(() => undefined);
      throw err;
    }
    return { text, state, taskId, contextId };
  }
}

function partsText(parts: readonly { content?: { $case: string; value?: unknown } | undefined }[]): string {
  return parts
    .map((p) => (p.content?.$case === 'text' && typeof p.content.value === 'string' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');
}
