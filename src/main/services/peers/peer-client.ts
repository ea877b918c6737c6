/**
 * Calling a peer (ask_peer): the SDK's client (@a2a-js/sdk/client) against the peer's endpoint, its agent card fetched
 * first, the token the person saved for them as `Authorization: Bearer`. Streams the task and returns its final text;
 * an aborted call cancels the task on the peer's side.
 *
 * Only the endpoint the person configured is ever contacted: the card is used only for the interfaces it lists at
 * that endpoint's own origin (a card naming another origin, this machine or a private address is refused before
 * anything is sent there), and every connection goes through the pinned HTTP client's fetch — each address judged by
 * the URL guard at connect time, a private one only when the person's configured endpoint names that very address,
 * no redirect followed — so neither the card nor a DNS answer can point the token and the message elsewhere.
 */
import { randomUUID } from 'node:crypto';
import { isIpLiteral, type Destination } from '../../../shared/url-guard';
import { judgeEndpoint } from '../../../shared/peer-endpoint';
import type { Resolver } from '../http/pinned-client';
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

type CardInterface = { url: string; protocolBinding: string };

/**
 * The card with only the interfaces at the endpoint's own origin; throws when it lists none there, naming where it
 * pointed (nothing is sent to those addresses).
 */
export function sameOriginCard<C extends { supportedInterfaces?: CardInterface[] }>(peer: string, card: C, origin: string): C {
  const all = card.supportedInterfaces ?? [];
  const originOf = (u: string) => {
    try {
      return new URL(u).origin;
    } catch {
      return null;
    }
  };
  const kept = all.filter((i) => originOf(i.url) === origin);
  if (!kept.length) {
    const named = all.map((i) => i.url.slice(0, 200)).join(', ') || 'no interface';
    throw new Error(`peer ${peer}'s agent card points to ${named}, not to its configured endpoint ${origin}; Deskhand sends only to the endpoint the person configured, so nothing was sent (ask them to serve their card and interface at ${origin}, or change the endpoint: deskhand peers add ${peer} --endpoint URL)`);
  }
  return { ...card, supportedInterfaces: kept };
}

export class A2aPeerCaller implements PeerCaller {
  constructor(
    private readonly book: Pick<PeerBook, 'list' | 'require' | 'outboundToken'>,
    /** How names resolve (tests map names to addresses; default: the system resolver). */
    private readonly opts: { resolver?: Resolver } = {},
  ) {}

  callable(): { name: string; endpoint: string }[] {
    return this.book.list().filter((p) => p.enabled && p.endpoint).map((p) => ({ name: p.name, endpoint: p.endpoint! }));
  }

  async ask(peerName: string, message: string, opts: { signal: AbortSignal; contextId?: string; taskId?: string }): Promise<PeerAnswer> {
    const peer = this.book.require(peerName);
    if (!peer.enabled) throw new Error(`Peer ${peer.name} is disabled (deskhand peers enable ${peer.name}).`);
    if (!peer.endpoint) throw new Error(`Peer ${peer.name} has no endpoint to call (deskhand peers add with --endpoint).`);
    const { dest, privateKind } = judgeEndpoint(peer.name, peer.endpoint);
    const token = await this.book.outboundToken(peer.name);
    const sdk = await import('@a2a-js/sdk/client');
    const { Role } = await import('@a2a-js/sdk');
    // Loaded here, like the SDK: what `policy explain` needs of the peer book must not bring the HTTP stack with it.
    const { pinnedFetch } = await import('../http/pinned-client');
    // A private endpoint is reachable only because the person configured that very host and port (and, when it is a
    // literal address, only that address); a public name that resolves to a private address is refused at connect.
    const allowPrivate = new Map<string, ReadonlySet<string> | null>(privateKind ? [[dest.key, isIpLiteral(dest.host) ? new Set([dest.host]) : null]] : []);
    const net = pinnedFetch({ ...(this.opts.resolver ? { resolver: this.opts.resolver } : {}), allowPrivate });
    try {
      return await this.converse(sdk, Role, net.fetch, dest, peer.name, token, message, opts);
    } finally {
      await net.close();
    }
  }

  private async converse(
    sdk: typeof import('@a2a-js/sdk/client'),
    Role: typeof import('@a2a-js/sdk').Role,
    fetchImpl: typeof fetch,
    dest: Destination,
    peerName: string,
    token: string | null,
    message: string,
    opts: { signal: AbortSignal; contextId?: string; taskId?: string },
  ): Promise<PeerAnswer> {
    const resolver = new sdk.DefaultAgentCardResolver({ fetchImpl });
    const card = sameOriginCard(peerName, await resolver.resolve(dest.url.href.replace(/\/+$/, '')), dest.url.origin);
    const factory = new sdk.ClientFactory(
      sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, { transports: [new sdk.JsonRpcTransportFactory({ fetchImpl }), new sdk.RestTransportFactory({ fetchImpl })], cardResolver: resolver }),
    );
    const client = await factory.createFromAgentCard(card);
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
