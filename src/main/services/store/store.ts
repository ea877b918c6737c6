/**
 * The one SQLite store. WAL + synchronous=FULL: a write acknowledged here survives a crash or power loss, so a run
 * killed with SIGKILL at any point leaves rows the runtime can recover from (see recoverInterrupted). Two kinds of
 * writes skip the fsync (`withoutFsync`, docs/performance.md): steps of a run that only read local files, and the
 * bookkeeping of running commands. They survive a SIGKILL all the same (WAL frames are the kernel's once written);
 * a power loss may roll back the latest of them, in order, never corrupting anything, and `sync()` (before any call
 * acts on the world) or the next full commit makes them durable.
 *
 * This class is the facade: tables, migrations and SQL belong to the store modules in ./modules (one per family),
 * and the database handle never leaves this folder.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStatus } from '../../../shared/events';
import { ExternalChangeWatcher } from './external-change';
import { migrate } from './migrate';
import { Sql, type StoreModule } from './module';
import { conversationsModule, type ConversationPatch, type ConversationRow, type NewConversation } from './modules/conversations';
import { inputRequestsModule, type ApprovalRow, type NewApproval, type PendingApprovalContextRow } from './modules/input-requests';
import { STORE_MODULES } from './modules/index';
import { rulesModule, type RuleRow } from './modules/rules';
import { runsModule, type MessageMatchRow, type MessageRow, type NewRun, type NewToolCall, type RunPatch, type RunRow, type ToolCallPatch, type ToolCallRow, type ToolCallStatus } from './modules/runs';
import { secretsCatalogModule, type SecretDescription } from './modules/secrets-catalog';
import { tasksModule, type TaskQueries } from './modules/tasks';
import { urlGrantsModule } from './modules/url-grants';
import { sqliteBinding } from './native-binding';

export type { ConversationRow } from './modules/conversations';
export type { MessageMatchRow, MessageRow, RunRow, ToolCallRow, ToolCallStatus } from './modules/runs';
export type { ApprovalRow, PendingApprovalContextRow } from './modules/input-requests';
export type { RuleRow } from './modules/rules';
export type { SecretDescription } from './modules/secrets-catalog';
export { runOwnerAlive } from '../processes/proc-info';

export const DB_FILE = 'deskhand.db';

export interface StoreOptions {
  /**
   * Points better-sqlite3 at a build for another ABI: Electron loads one made for its own Node (better-sqlite3 12 is
   * not N-API), while the CLI and the tests keep the Node build in node_modules.
   */
  nativeBinding?: string;
  /** Modules beyond the built-in ones (migrated after them); reach their queries with `store.module(m)`. */
  modules?: readonly StoreModule<unknown>[];
  /** The slow safety re-check of onExternalChange (tests lengthen it to prove the file watch alone suffices). */
  externalChangeSafetyMs?: number;
}

const BUSY_TIMEOUT_MS = 5000;

export class Store {
  readonly #db: Database.Database;
  readonly #sql: Sql;
  readonly #modules = new Map<StoreModule<unknown>, unknown>();
  readonly #watcher: ExternalChangeWatcher;
  readonly #conversations: ReturnType<typeof conversationsModule.queries>;
  readonly #runs: ReturnType<typeof runsModule.queries>;
  readonly #requests: ReturnType<typeof inputRequestsModule.queries>;
  /** Always-allow rules (modules/rules.ts). */
  readonly rules: ReturnType<typeof rulesModule.queries>;
  readonly #secrets: ReturnType<typeof secretsCatalogModule.queries>;
  /** Rows of background tasks, their jobs and process groups (services/tasks). */
  readonly tasks: TaskQueries;
  /** URL patterns whose requests run unattended (the web family). */
  readonly urlGrants: ReturnType<typeof urlGrantsModule.queries>;

  constructor(
    readonly dataDir: string,
    opts: StoreOptions = {},
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Electron loads a better-sqlite3 built for its own ABI; without an explicit one, the process-wide choice applies.
    const nativeBinding = opts.nativeBinding ?? sqliteBinding();
    this.#db = new Database(join(dataDir, DB_FILE), { timeout: BUSY_TIMEOUT_MS, ...(nativeBinding ? { nativeBinding } : {}) });
    try {
      this.#db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      enableWal(this.#db);
      this.#db.pragma('synchronous = FULL');
      this.#db.pragma('foreign_keys = ON');
      // A checkpoint (copying the WAL back into the database, with fsyncs) ran every ~25 steps of an agent loop, in
      // the commit that crossed 1000 pages; the same hot pages are rewritten every step, so checkpointing at 8000
      // pages (≈ 32 MB of WAL) copies far fewer pages in all. The WAL is cut back to 64 MB after a checkpoint.
      this.#db.pragma('wal_autocheckpoint = 8000');
      this.#db.pragma('journal_size_limit = 67108864');
      const modules = [...STORE_MODULES, ...(opts.modules ?? [])] as StoreModule<unknown>[];
      migrate(this.#db, modules);
      this.#sql = new Sql(this.#db);
      for (const m of modules) this.#modules.set(m, m.queries(this.#sql));
    } catch (err) {
      this.#db.close();
      throw err;
    }
    this.#conversations = this.module(conversationsModule);
    this.#runs = this.module(runsModule);
    this.#requests = this.module(inputRequestsModule);
    this.rules = this.module(rulesModule);
    this.#secrets = this.module(secretsCatalogModule);
    this.tasks = this.module(tasksModule);
    this.urlGrants = this.module(urlGrantsModule);
    this.#watcher = new ExternalChangeWatcher(
      dataDir,
      DB_FILE,
      () => {
        // Not a stretch's read snapshot (Sql's): the version of every commit made so far.
        this.#sql.settle();
        return this.#db.pragma('data_version', { simple: true }) as number;
      },
      opts.externalChangeSafetyMs,
    );
  }

  /**
   * A stamp that changes whenever the data may have changed: rows this connection changed (`total_changes()`, rolled
   * back ones included) and commits of every other connection (`data_version`). Two equal stamps mean nothing was
   * written in between, so what was read from the store then still holds (the agent loop's per-step views).
   */
  changeStamp(): string {
    const r = this.#sql.one<{ t: number; d: number }>('SELECT total_changes() AS t, (SELECT data_version FROM pragma_data_version) AS d')!;
    return `${r.t}:${r.d}`;
  }

  /** The queries of a module this store was opened with. */
  /**
   * The host's redactor (vault secrets, the provider key, credential shapes) for every column that holds text from
   * outside: MCP health, task summaries and job tails, children's answers, workflow and Tower text (Sql.text).
   */
  setRedactor(redact: (text: string) => string): void {
    this.#sql.setRedactor(redact);
  }

  module<Q>(m: StoreModule<Q>): Q {
    if (!this.#modules.has(m as StoreModule<unknown>)) throw new Error(`Store module ${m.name} is not part of this store.`);
    return this.#modules.get(m as StoreModule<unknown>) as Q;
  }

  get isOpen(): boolean {
    return this.#db.open;
  }

  /**
   * Ends the read snapshot of the synchronous stretch now running (Sql.settle): the next read sees every commit made so
   * far, by any connection. Only code that writes through a connection of its own and reads back here in the same
   * stretch needs it (tests); reads in later stretches always start fresh.
   */
  settle(): void {
    this.#sql.settle();
  }

  close(): void {
    this.#watcher.close();
    this.#db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.#sql.transaction(fn);
  }

  /**
   * A transaction committed without an fsync: it survives Deskhand being killed at any point, and commits stay in
   * order, but a power loss may lose it together with every later commit (never corrupting the store; the state left
   * is one a SIGKILL at that moment would have left). For steps that only read. See Sql.transactionWithoutFsync.
   */
  transactionWithoutFsync<T>(fn: () => T): T {
    return this.#sql.transactionWithoutFsync(fn);
  }

  /** The writes `fn` makes (synchronously) are committed without an fsync; see transactionWithoutFsync. */
  withoutFsync<T>(fn: () => T): T {
    return this.#sql.withoutFsync(fn);
  }

  /** Makes every commit so far durable against power loss (fsyncs the WAL if a commit skipped it). */
  sync(): void {
    this.#sql.sync();
  }

  /**
   * Calls `listener` after another connection (another process, or another Store on the same folder) committed.
   * Noticed through a file watch confirmed by `PRAGMA data_version`, with a slow safety re-check; this
   * connection's own writes do not fire it. Returns the unsubscribe function.
   */
  onExternalChange(listener: () => void): () => void {
    return this.#watcher.add(listener);
  }

  // Conversations

  createConversation(row: NewConversation): ConversationRow {
    return this.#conversations.create(row);
  }

  getConversation(id: string): ConversationRow | undefined {
    return this.#conversations.get(id);
  }

  listConversations(): ConversationRow[] {
    return this.#conversations.list();
  }

  updateConversation(id: string, patch: ConversationPatch): void {
    this.#conversations.update(id, patch);
  }

  deleteConversation(id: string): void {
    this.#conversations.delete(id);
  }

  // Messages

  addMessage(conversationId: string, runId: string | null, role: MessageRow['role'], content: unknown): number {
    const now = Date.now();
    return this.transaction(() => {
      const id = this.#runs.addMessage(conversationId, runId, role, JSON.stringify(content), now);
      this.#conversations.touch(conversationId, now);
      return id;
    });
  }

  /** Full-text matches in message text, newest first (`match`: an FTS5 query built from words). */
  searchMessages(match: string, limit: number): MessageMatchRow[] {
    return this.#runs.searchMessages(match, limit);
  }

  listMessages(conversationId: string): MessageRow[] {
    return this.#runs.listMessages(conversationId);
  }

  /** A conversation's messages after `afterId` (ids only grow: AUTOINCREMENT), id, role and content only. */
  messagesAfter(conversationId: string, afterId: number): Pick<MessageRow, 'id' | 'role' | 'content'>[] {
    return this.#runs.messagesAfter(conversationId, afterId);
  }

  /** The latest message of a conversation (without reading the others). */
  lastMessage(conversationId: string): MessageRow | undefined {
    return this.#runs.lastMessage(conversationId);
  }

  countMessages(conversationId: string): number {
    return this.#runs.countMessages(conversationId);
  }

  countMessagesAfter(conversationId: string, afterId: number): number {
    return this.#runs.countMessagesAfter(conversationId, afterId);
  }

  /** The latest message of a conversation with this role (the person's last message, for example). */
  lastMessageWithRole(conversationId: string, role: MessageRow['role']): MessageRow | undefined {
    return this.#runs.lastMessageWithRole(conversationId, role);
  }

  // Runs

  /** A new run owned by this process (its pid and start time are recorded: see runOwnerAlive). */
  createRun(row: NewRun): RunRow {
    return this.#runs.createRun(row);
  }

  getRun(id: string): RunRow | undefined {
    return this.#runs.getRun(id);
  }

  listRuns(limit = 50): RunRow[] {
    return this.#runs.listRuns(limit);
  }

  runsWithStatus(status: RunStatus): RunRow[] {
    return this.#runs.runsWithStatus(status);
  }

  runsForConversation(conversationId: string): RunRow[] {
    return this.#runs.runsForConversation(conversationId);
  }

  latestRunForConversation(conversationId: string): RunRow | undefined {
    return this.#runs.latestRunForConversation(conversationId);
  }

  activeRunForConversation(conversationId: string): RunRow | undefined {
    return this.#runs.activeRunForConversation(conversationId);
  }

  /** Setting owner_pid without owner_start records this process's start time for its own pid, and clears it otherwise. */
  updateRun(id: string, patch: RunPatch): void {
    this.#runs.updateRun(id, patch);
  }

  /** Atomically claims a run for this process (pid and start time); false when it is no longer in `fromStatuses`. */
  claimRun(id: string, fromStatuses: RunStatus[]): boolean {
    return this.#runs.claimRun(id, fromStatuses);
  }

  // Tool calls

  insertToolCall(row: NewToolCall): void {
    this.#runs.insertToolCall(row);
  }

  updateToolCall(id: string, patch: ToolCallPatch): void {
    this.#runs.updateToolCall(id, patch);
  }

  getToolCall(id: string): ToolCallRow | undefined {
    return this.#runs.getToolCall(id);
  }

  toolCallsForStep(runId: string, step: number): ToolCallRow[] {
    return this.#runs.toolCallsForStep(runId, step);
  }

  toolCallsForRun(runId: string): ToolCallRow[] {
    return this.#runs.toolCallsForRun(runId);
  }

  /** A run's calls as ids, steps, tools and arguments only (no outputs): what a step checks its new calls against. */
  callKeysForRun(runId: string): Pick<ToolCallRow, 'call_id' | 'step' | 'tool' | 'args'>[] {
    return this.#runs.callKeysForRun(runId);
  }

  /** A run's successful calls, tool and arguments only (no outputs). */
  /** The run's calls of these tools that finished without an error (what the run holds: secrets it fetched). */
  succeededCallArgs(runId: string, tools: readonly string[]): Pick<ToolCallRow, 'tool' | 'args' | 'status' | 'is_error'>[] {
    return this.#runs.succeededCallArgs(runId, tools);
  }

  toolCallsForConversation(conversationId: string): ToolCallRow[] {
    return this.#runs.toolCallsForConversation(conversationId);
  }

  /** The full output of a call of this conversation's run (with its tool and how it ended), or undefined when there is no such call. */
  toolCallOutput(conversationId: string, runId: string, callId: string): { output: string | null; tool: string; status: ToolCallStatus; is_error: number } | undefined {
    return this.#runs.toolCallOutput(conversationId, runId, callId);
  }

  // Approvals and other input requests

  /** A pending request; `kind` defaults to 'approval', `request` (JSON of schema, prompt and data) to null. */
  insertApproval(row: NewApproval): ApprovalRow {
    return this.#requests.insert(row);
  }

  getApproval(id: string): ApprovalRow | undefined {
    return this.#requests.get(id);
  }

  pendingApprovals(runId?: string): ApprovalRow[] {
    return this.#requests.pending(runId);
  }

  /** The requests a background task opened (a background question's). */
  approvalsForTask(taskId: string): ApprovalRow[] {
    return this.#requests.forTask(taskId);
  }

  approvalsForRun(runId: string): ApprovalRow[] {
    return this.#requests.forRun(runId);
  }

  approvalsForConversation(conversationId: string): ApprovalRow[] {
    return this.#requests.forConversation(conversationId);
  }

  /** The newest request bound to a tool call (the row id, not the model's call id). */
  latestApprovalForCall(toolCallId: string): ApprovalRow | undefined {
    return this.#requests.latestForCall(toolCallId);
  }

  /** Number of pending requests per conversation id. */
  pendingApprovalCounts(): Map<string, number> {
    return new Map(this.#requests.pendingCountsByConversation().map((r) => [r.id, r.n]));
  }

  pendingApprovalsWithContext(): PendingApprovalContextRow[] {
    return this.#requests.pendingWithContext();
  }

  /** Single use: only a pending approval can be decided, and only once (the UPDATE is the check). */
  decideApproval(id: string, status: 'approved' | 'denied', always: boolean, reason: string | null): boolean {
    return this.#requests.decide(id, status, always, reason);
  }

  /** Answers a pending input request with `answer` (JSON, already redacted); single use like decideApproval. */
  answerApproval(id: string, status: 'approved' | 'denied', answer: string | null, reason: string | null): boolean {
    return this.#requests.answer(id, status, answer, reason);
  }

  /** A pending approval nobody answered before its run was stopped; like a decision, only once. */
  expireApproval(id: string, reason: string): boolean {
    return this.#requests.expire(id, reason);
  }

  // Rules

  hasRule(tool: string, pattern: string): boolean {
    return this.rules.has(tool, pattern);
  }

  listRules(): RuleRow[] {
    return this.rules.list();
  }

  // Saved secrets: names and descriptions only (values live in the OS keyring; see services/vault/vault.ts)

  describeSecret(name: string, description: string): void {
    this.#secrets.describe(name, description);
  }

  secretDescriptions(): SecretDescription[] {
    return this.#secrets.descriptions();
  }

  forgetSecret(name: string): void {
    this.#secrets.forget(name);
  }
}

/**
 * Switching a new database to WAL needs the database to itself; when several processes open a new folder at once,
 * the switch can come back SQLITE_BUSY, so it is retried (briefly, within the busy timeout) until one has made it.
 */
function enableWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}
