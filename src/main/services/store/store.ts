/**
 * The one SQLite store. WAL + synchronous=FULL: a write acknowledged here survives a crash or power loss, so a run
 * killed with SIGKILL at any point leaves rows the runtime can recover from (see recoverInterrupted).
 */
import Database from 'better-sqlite3';
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Policy, RiskTier } from '../../../shared/tools';
import type { SandboxMode } from '../../../shared/sandbox';
import type { RunStatus } from '../../../shared/events';
import { DeskhandError } from '../../../shared/errors';
import { MIGRATIONS } from './migrations';
import { UrlGrantTable } from './url-grants';

export interface ConversationRow {
  id: string;
  title: string;
  folder: string;
  policy: Policy;
  state: string;
  /** How this conversation's commands run (see src/shared/sandbox.ts). */
  sandbox: SandboxMode;
  /** 1 once any run of the conversation read untrusted content: later runs, resumes and subagents start tainted. */
  tainted: number;
  created_at: number;
  updated_at: number;
}

export interface MessageRow {
  id: number;
  conversation_id: string;
  run_id: string | null;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  created_at: number;
}

export interface RunRow {
  id: string;
  conversation_id: string;
  status: RunStatus;
  policy: Policy;
  provider: string;
  model: string;
  base_url: string | null;
  step: number;
  input_tokens: number;
  output_tokens: number;
  tainted: number;
  error: string | null;
  owner_pid: number | null;
  created_at: number;
  updated_at: number;
}

export type ToolCallStatus = 'pending' | 'awaiting_approval' | 'approved' | 'running' | 'done' | 'error' | 'denied' | 'interrupted';

export interface ToolCallRow {
  id: string;
  run_id: string;
  step: number;
  position: number;
  call_id: string;
  tool: string;
  args: string;
  args_sha256: string;
  risk: RiskTier | null;
  decision: string | null;
  reasons: string;
  status: ToolCallStatus;
  output: string | null;
  is_error: number;
  /** JSON of the path checks (runtime/path-guard.ts) the call was decided on, or null. */
  paths: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface ApprovalRow {
  id: string;
  run_id: string;
  tool_call_id: string;
  tool: string;
  args_sha256: string;
  risk: RiskTier;
  reasons: string;
  description: string;
  preview: string | null;
  always_pattern: string | null;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  /** 'approval', or the kind of an input request (secret, question, file_pick…) answered with a value. */
  kind: string;
  /** JSON: what the person is shown for an input request (its kind's data). */
  request: string | null;
  /** JSON: the answer, redacted (a secret's value is never stored). */
  answer: string | null;
  always: number;
  reason: string | null;
  created_at: number;
  decided_at: number | null;
}

export interface RuleRow {
  id: string;
  tool: string;
  pattern: string;
  created_at: number;
}

export class Store {
  readonly db: Database.Database;
  /** URL grants (url-grants.ts): patterns whose matching requests run unattended. */
  readonly urlGrants: UrlGrantTable;

  /**
   * `nativeBinding` points better-sqlite3 at a build for another ABI: Electron loads one made for its own Node
   * (better-sqlite3 12 is not N-API), while the CLI and the tests keep the Node build in node_modules.
   */
  constructor(
    readonly dataDir: string,
    opts: { nativeBinding?: string } = {},
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.db = new Database(join(dataDir, 'deskhand.db'), opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    this.urlGrants = new UrlGrantTable(this.db);
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new DeskhandError(
        'conflict',
        `This data folder was written by a newer Deskhand (schema ${current}, this build knows ${MIGRATIONS.length}). Update Deskhand or use another --data-dir.`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  close(): void {
    this.stopWatching();
    this.db.close();
  }

  private readonly externalListeners = new Set<() => void>();
  private watcher: FSWatcher | null = null;
  private safety: NodeJS.Timeout | null = null;
  private lastVersion = 0;

  /**
   * Calls `listener` when another connection (another process) commits to this database: a watch on the data folder
   * wakes the check, SQLite's data_version confirms it (it changes only for other connections' commits). A slow
   * re-check covers file systems whose watches miss events.
   */
  onExternalChange(listener: () => void): () => void {
    this.externalListeners.add(listener);
    if (!this.watcher) {
      this.lastVersion = this.db.pragma('data_version', { simple: true }) as number;
      this.watcher = watch(this.dataDir, (_event, name) => {
        if (!name || String(name).startsWith('deskhand.db')) this.checkExternal();
      });
      this.watcher.on('error', () => undefined);
      this.safety = setInterval(() => this.checkExternal(), 5000);
      this.safety.unref();
    }
    return () => {
      this.externalListeners.delete(listener);
      if (this.externalListeners.size === 0) this.stopWatching();
    };
  }

  private checkExternal(): void {
    if (!this.db.open) return;
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    for (const l of [...this.externalListeners]) l();
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.safety) clearInterval(this.safety);
    this.safety = null;
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // Conversations

  createConversation(row: Omit<ConversationRow, 'created_at' | 'updated_at' | 'state' | 'sandbox' | 'tainted'> & { state?: string; sandbox?: SandboxMode }): ConversationRow {
    const now = Date.now();
    const full: ConversationRow = { state: '{}', ...row, sandbox: row.sandbox ?? 'workspace-write', tainted: 0, created_at: now, updated_at: now };
    this.db
      .prepare('INSERT INTO conversations (id,title,folder,policy,state,sandbox,created_at,updated_at) VALUES (@id,@title,@folder,@policy,@state,@sandbox,@created_at,@updated_at)')
      .run(full);
    return full;
  }

  getConversation(id: string): ConversationRow | undefined {
    return this.db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as ConversationRow | undefined;
  }

  listConversations(): ConversationRow[] {
    return this.db.prepare('SELECT * FROM conversations ORDER BY updated_at DESC').all() as ConversationRow[];
  }

  updateConversation(id: string, patch: Partial<Pick<ConversationRow, 'title' | 'policy' | 'state' | 'folder' | 'sandbox' | 'tainted'>>): void {
    const fields = Object.keys(patch) as (keyof typeof patch)[];
    if (fields.length === 0) return;
    const sets = fields.map((f) => `${f} = @${f}`).join(', ');
    this.db.prepare(`UPDATE conversations SET ${sets}, updated_at = @now WHERE id = @id`).run({ ...patch, id, now: Date.now() });
  }

  deleteConversation(id: string): void {
    this.db.prepare('DELETE FROM conversations WHERE id = ?').run(id);
  }

  // Messages

  addMessage(conversationId: string, runId: string | null, role: MessageRow['role'], content: unknown): number {
    const now = Date.now();
    const info = this.db
      .prepare('INSERT INTO messages (conversation_id, run_id, role, content, created_at) VALUES (?,?,?,?,?)')
      .run(conversationId, runId, role, JSON.stringify(content), now);
    this.db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(now, conversationId);
    return Number(info.lastInsertRowid);
  }

  listMessages(conversationId: string): MessageRow[] {
    return this.db.prepare('SELECT * FROM messages WHERE conversation_id = ? ORDER BY id').all(conversationId) as MessageRow[];
  }

  countMessages(conversationId: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM messages WHERE conversation_id = ?').get(conversationId) as { n: number }).n;
  }

  // Runs

  createRun(row: Pick<RunRow, 'id' | 'conversation_id' | 'policy' | 'provider' | 'model' | 'base_url'>): RunRow {
    const now = Date.now();
    const full: RunRow = {
      ...row,
      status: 'running',
      step: 0,
      input_tokens: 0,
      output_tokens: 0,
      tainted: 0,
      error: null,
      owner_pid: process.pid,
      created_at: now,
      updated_at: now,
    };
    this.db
      .prepare(
        `INSERT INTO runs (id,conversation_id,status,policy,provider,model,base_url,step,input_tokens,output_tokens,tainted,error,owner_pid,created_at,updated_at)
         VALUES (@id,@conversation_id,@status,@policy,@provider,@model,@base_url,@step,@input_tokens,@output_tokens,@tainted,@error,@owner_pid,@created_at,@updated_at)`,
      )
      .run(full);
    return full;
  }

  getRun(id: string): RunRow | undefined {
    return this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
  }

  listRuns(limit = 50): RunRow[] {
    return this.db.prepare('SELECT * FROM runs ORDER BY created_at DESC LIMIT ?').all(limit) as RunRow[];
  }

  runsWithStatus(status: RunStatus): RunRow[] {
    return this.db.prepare('SELECT * FROM runs WHERE status = ? ORDER BY created_at').all(status) as RunRow[];
  }

  activeRunForConversation(conversationId: string): RunRow | undefined {
    return this.db
      .prepare("SELECT * FROM runs WHERE conversation_id = ? AND status IN ('running','parked') ORDER BY created_at DESC LIMIT 1")
      .get(conversationId) as RunRow | undefined;
  }

  updateRun(id: string, patch: Partial<Omit<RunRow, 'id' | 'conversation_id' | 'created_at'>>): void {
    const fields = Object.keys(patch);
    if (fields.length === 0) return;
    const sets = fields.map((f) => `${f} = @${f}`).join(', ');
    this.db.prepare(`UPDATE runs SET ${sets}, updated_at = @now WHERE id = @id`).run({ ...patch, id, now: Date.now() });
  }

  /** Atomically claims a run for this process; false when another live process already owns it. */
  claimRun(id: string, fromStatuses: RunStatus[]): boolean {
    const placeholders = fromStatuses.map(() => '?').join(',');
    const info = this.db
      .prepare(`UPDATE runs SET status = 'running', owner_pid = ?, updated_at = ? WHERE id = ? AND status IN (${placeholders})`)
      .run(process.pid, Date.now(), id, ...fromStatuses);
    return info.changes === 1;
  }

  // Tool calls

  insertToolCall(row: Omit<ToolCallRow, 'created_at' | 'finished_at' | 'output' | 'is_error' | 'paths'>): void {
    this.db
      .prepare(
        `INSERT INTO tool_calls (id,run_id,step,position,call_id,tool,args,args_sha256,risk,decision,reasons,status,created_at)
         VALUES (@id,@run_id,@step,@position,@call_id,@tool,@args,@args_sha256,@risk,@decision,@reasons,@status,@now)`,
      )
      .run({ ...row, now: Date.now() });
  }

  updateToolCall(id: string, patch: Partial<Pick<ToolCallRow, 'risk' | 'decision' | 'reasons' | 'status' | 'output' | 'is_error' | 'finished_at' | 'paths'>>): void {
    const fields = Object.keys(patch);
    if (fields.length === 0) return;
    const sets = fields.map((f) => `${f} = @${f}`).join(', ');
    this.db.prepare(`UPDATE tool_calls SET ${sets} WHERE id = @id`).run({ ...patch, id });
  }

  getToolCall(id: string): ToolCallRow | undefined {
    return this.db.prepare('SELECT * FROM tool_calls WHERE id = ?').get(id) as ToolCallRow | undefined;
  }

  toolCallsForStep(runId: string, step: number): ToolCallRow[] {
    return this.db.prepare('SELECT * FROM tool_calls WHERE run_id = ? AND step = ? ORDER BY position').all(runId, step) as ToolCallRow[];
  }

  toolCallsForRun(runId: string): ToolCallRow[] {
    return this.db.prepare('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY step, position').all(runId) as ToolCallRow[];
  }

  // Approvals

  insertApproval(
    row: Omit<ApprovalRow, 'status' | 'always' | 'reason' | 'created_at' | 'decided_at' | 'kind' | 'request' | 'answer'> & { kind?: string; request?: string | null },
  ): ApprovalRow {
    const full: ApprovalRow = {
      ...row,
      kind: row.kind ?? 'approval',
      request: row.request ?? null,
      answer: null,
      status: 'pending',
      always: 0,
      reason: null,
      created_at: Date.now(),
      decided_at: null,
    };
    this.db
      .prepare(
        `INSERT INTO approvals (id,run_id,tool_call_id,tool,args_sha256,risk,reasons,description,preview,always_pattern,kind,request,answer,status,always,reason,created_at,decided_at)
         VALUES (@id,@run_id,@tool_call_id,@tool,@args_sha256,@risk,@reasons,@description,@preview,@always_pattern,@kind,@request,@answer,@status,@always,@reason,@created_at,@decided_at)`,
      )
      .run(full);
    return full;
  }

  getApproval(id: string): ApprovalRow | undefined {
    return this.db.prepare('SELECT * FROM approvals WHERE id = ?').get(id) as ApprovalRow | undefined;
  }

  pendingApprovals(runId?: string): ApprovalRow[] {
    if (runId) {
      return this.db.prepare("SELECT * FROM approvals WHERE status = 'pending' AND run_id = ? ORDER BY created_at").all(runId) as ApprovalRow[];
    }
    return this.db.prepare("SELECT * FROM approvals WHERE status = 'pending' ORDER BY created_at").all() as ApprovalRow[];
  }

  /** Single use: only a pending approval can be decided, and only once (the UPDATE is the check). */
  decideApproval(id: string, status: 'approved' | 'denied', always: boolean, reason: string | null): boolean {
    const info = this.db
      .prepare("UPDATE approvals SET status = ?, always = ?, reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'")
      .run(status, always ? 1 : 0, reason, Date.now(), id);
    return info.changes === 1;
  }

  /** Answers an input request: like decideApproval, single use; `answer` is the redacted JSON of the value. */
  answerApproval(id: string, status: 'approved' | 'denied', answer: string | null, reason: string | null): boolean {
    const info = this.db
      .prepare("UPDATE approvals SET status = ?, answer = ?, reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'")
      .run(status, answer, reason, Date.now(), id);
    return info.changes === 1;
  }

  /** The newest approval or input request of a tool call. */
  latestApprovalForCall(toolCallId: string): ApprovalRow | undefined {
    return this.db.prepare('SELECT * FROM approvals WHERE tool_call_id = ? ORDER BY created_at DESC LIMIT 1').get(toolCallId) as ApprovalRow | undefined;
  }

  /** A pending approval nobody answered before its run was stopped; like a decision, only once. */
  expireApproval(id: string, reason: string): boolean {
    const info = this.db.prepare("UPDATE approvals SET status = 'expired', reason = ?, decided_at = ? WHERE id = ? AND status = 'pending'").run(reason, Date.now(), id);
    return info.changes === 1;
  }

  // Rules

  addRule(tool: string, pattern: string, id: string): void {
    this.db.prepare('INSERT OR IGNORE INTO rules (id, tool, pattern, created_at) VALUES (?,?,?,?)').run(id, tool, pattern, Date.now());
  }

  hasRule(tool: string, pattern: string): boolean {
    return this.db.prepare('SELECT 1 FROM rules WHERE tool = ? AND pattern = ?').get(tool, pattern) !== undefined;
  }

  // Saved secrets: names and descriptions only (values live in the OS keyring; see services/vault/vault.ts)

  describeSecret(name: string, description: string): void {
    const now = Date.now();
    this.db
      .prepare('INSERT INTO secrets (name, description, created_at, updated_at) VALUES (?,?,?,?) ON CONFLICT(name) DO UPDATE SET description = excluded.description, updated_at = excluded.updated_at')
      .run(name, description, now, now);
  }

  secretDescriptions(): { name: string; description: string; updated_at: number }[] {
    return this.db.prepare('SELECT name, description, updated_at FROM secrets ORDER BY name').all() as { name: string; description: string; updated_at: number }[];
  }

  forgetSecret(name: string): void {
    this.db.prepare('DELETE FROM secrets WHERE name = ?').run(name);
  }

  listRules(): RuleRow[] {
    return this.db.prepare('SELECT * FROM rules ORDER BY created_at').all() as RuleRow[];
  }
}
