/** The memory service over the store's memory module: limits, receipts with diffs, scopes, FTS5 search. */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { memoryModule, type MemoryReceiptRow, type MemoryRow, type ScopeRef, type ScratchpadRow } from '../store/modules/memory';
import { MEMORY_LIMITS, ftsQuery, recordDiff, type Changed, type MemoryDraft, type MemoryService } from './index';

type Queries = ReturnType<typeof memoryModule.queries>;

export interface MemoryServiceOptions {
  /** Credential-shaped text is refused (memory is not a secrets store). */
  looksSecret?: (text: string) => boolean;
  /** DESKHAND_MEMORY_EXTRACTION=off keeps automatic extraction off whatever was chosen; =on turns it on. */
  env?: NodeJS.ProcessEnv;
}

export class StoreMemoryService implements MemoryService {
  private readonly q: Queries;

  constructor(
    store: Store,
    private readonly opts: MemoryServiceOptions = {},
  ) {
    this.q = store.module(memoryModule);
  }

  scopesFor(folder: string): ScopeRef[] {
    const workspace = resolve(folder);
    return [
      { scope: 'user', key: '' },
      { scope: 'workspace', key: workspace },
      { scope: 'project', key: projectRoot(workspace) },
    ];
  }

  scratchpad(folder: string): ScratchpadRow | null {
    return this.q.scratchpad(resolve(folder)) ?? null;
  }

  updateScratchpad(folder: string, next: (current: string) => string, opts: { tainted: boolean; replaces: boolean }): ScratchpadRow | null {
    const key = resolve(folder);
    return this.q.transaction(() => {
      const row = this.q.scratchpad(key);
      const text = next(row?.text ?? '');
      this.q.setScratchpad(key, text, opts.tainted || (!opts.replaces && row?.tainted === 1));
      return this.q.scratchpad(key) ?? null;
    });
  }

  private keyOf(scope: MemoryDraft['scope'], folder: string): string {
    return this.scopesFor(folder).find((s) => s.scope === scope)!.key;
  }

  add(draft: MemoryDraft, opts: Parameters<MemoryService['add']>[1]): Changed {
    this.check(draft);
    const key = this.keyOf(draft.scope, opts.folder);
    return this.q.transaction(() => {
      const n = this.q.countInScope(draft.scope, key);
      if (n >= MEMORY_LIMITS.perScope) {
        throw new DeskhandError('usage', `The ${draft.scope} memory holds ${n} records, the limit is ${MEMORY_LIMITS.perScope}. Update or remove a record instead of adding one.`);
      }
      const now = Date.now();
      const status = opts.status ?? 'active';
      const row: Omit<MemoryRow, 'seq'> = {
        id: `mem_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
        kind: opts.kind ?? 'memory',
        scope: draft.scope,
        scope_key: key,
        topic: draft.topic.trim(),
        body: draft.body,
        quote: draft.quote,
        status,
        source: opts.source ?? 'tool',
        conversation_id: opts.conversationId ?? null,
        confirmed: 0,
        created_at: now,
        updated_at: now,
      };
      this.q.insert(row);
      const receipt = this.receipt(row.id, status === 'proposed' ? 'propose' : 'add', opts.actor, recordDiff(null, row), opts.conversationId);
      return { record: this.q.get(row.id)!, receipt };
    });
  }

  update(id: string, patch: Parameters<MemoryService['update']>[1], opts: Parameters<MemoryService['update']>[2]): Changed {
    const before = this.must(id);
    const next = { scope: before.scope, topic: patch.topic ?? before.topic, body: patch.body ?? before.body, quote: patch.quote === undefined ? before.quote : patch.quote };
    this.check(next);
    return this.q.transaction(() => {
      // The person's edit confirms the record as it now stands; the agent's makes it agent-written again.
      this.q.update(id, { topic: next.topic.trim(), body: next.body, quote: next.quote, confirmed: opts.byPerson ? 1 : 0 });
      const after = this.q.get(id)!;
      return { record: after, receipt: this.receipt(id, 'update', opts.actor, recordDiff(before, after), opts.conversationId) };
    });
  }

  remove(id: string, opts: { actor: string; conversationId?: string | null }): MemoryReceiptRow {
    const before = this.must(id);
    return this.q.transaction(() => {
      this.q.remove(id);
      return this.receipt(id, 'remove', opts.actor, recordDiff(before, null), opts.conversationId);
    });
  }

  accept(id: string, actor: string): Changed {
    return this.decide(id, 'active', actor);
  }

  reject(id: string, actor: string): Changed {
    return this.decide(id, 'rejected', actor);
  }

  private decide(id: string, status: 'active' | 'rejected', actor: string): Changed {
    const row = this.must(id);
    if (row.status !== 'proposed') throw new DeskhandError('conflict', `${id} is ${row.status}, not proposed; only a proposed record is accepted or rejected.`);
    return this.q.transaction(() => {
      this.q.update(id, { status, confirmed: status === 'active' ? 1 : 0 });
      const diff = `${id}: proposed -> ${status}\n${recordDiff(null, row)}`;
      return { record: this.q.get(id)!, receipt: this.receipt(id, status === 'active' ? 'accept' : 'reject', actor, diff, row.conversation_id) };
    });
  }

  get(id: string): MemoryRow | undefined {
    return this.q.get(id);
  }

  list(filter: Parameters<MemoryService['list']>[0] = {}): MemoryRow[] {
    return this.q.list({ ...(filter.kind ? { kind: filter.kind } : {}), ...(filter.status ? { status: filter.status } : {}), ...(filter.folder ? { scopes: this.scopesFor(filter.folder) } : {}) });
  }

  search(query: string, folder: string, limit = 10, kind?: MemoryRow['kind']): MemoryRow[] {
    const match = ftsQuery(query);
    if (!match) return [];
    return this.q.search(match, this.scopesFor(folder), limit, kind);
  }

  /** A number that changes whenever any record changes (in this process or another): a search result stands until it does. */
  generation(): number {
    return this.q.generation();
  }

  receipts(id: string): MemoryReceiptRow[] {
    return this.q.receipts(id);
  }

  extractionEnabled(): boolean {
    const saved = this.q.getSetting('extraction');
    const env = (this.opts.env ?? process.env).DESKHAND_MEMORY_EXTRACTION;
    if (env === 'off') return false;
    if (env === 'on') return true;
    // Off until the person chooses it (first run or Settings → Memory): it costs a model request per turn and sends
    // the turn's text to the provider.
    return saved === 'on';
  }

  setExtraction(on: boolean): void {
    this.q.setSetting('extraction', on ? 'on' : 'off');
  }

  private must(id: string): MemoryRow {
    const row = this.q.get(id);
    if (!row) throw new DeskhandError('not_found', `No memory record ${id}. List them with view_memory (or \`deskhand memory list\`).`);
    return row;
  }

  private check(d: { topic: string; body: string; quote: string | null }): void {
    const bytes = Buffer.byteLength(d.body, 'utf8');
    if (!d.body.trim()) throw new DeskhandError('usage', 'The memory body is empty. Write the fact or preference to remember.');
    if (bytes > MEMORY_LIMITS.bodyBytes) throw new DeskhandError('usage', `The memory body is ${bytes} bytes; the limit is ${MEMORY_LIMITS.bodyBytes} UTF-8 bytes. Shorten it or split it into records.`);
    if (!d.topic.trim()) throw new DeskhandError('usage', 'Give the record a topic (a few words it is about).');
    if (d.topic.length > MEMORY_LIMITS.topicChars) throw new DeskhandError('usage', `The topic is ${d.topic.length} characters; the limit is ${MEMORY_LIMITS.topicChars}.`);
    if (d.quote && d.quote.length > MEMORY_LIMITS.quoteChars) throw new DeskhandError('usage', `The quote is ${d.quote.length} characters; the limit is ${MEMORY_LIMITS.quoteChars}. Quote only the words the record comes from.`);
    if (this.opts.looksSecret?.(`${d.topic}\n${d.body}`)) throw new DeskhandError('usage', 'That looks like a credential. Memory is not a secrets store: save secrets with ask_user_secret instead.');
  }

  private receipt(memoryId: string, action: MemoryReceiptRow['action'], actor: string, diff: string, conversationId?: string | null): MemoryReceiptRow {
    const r: MemoryReceiptRow = { id: `rcpt_${randomUUID().replace(/-/g, '').slice(0, 12)}`, memory_id: memoryId, action, actor, diff, conversation_id: conversationId ?? null, created_at: Date.now() };
    this.q.addReceipt(r);
    return r;
  }
}

/** The nearest folder at or above `folder` holding `.git`; the folder itself when there is none. */
export function projectRoot(folder: string): string {
  let dir = folder;
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return folder;
    dir = up;
  }
}
