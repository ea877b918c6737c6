/**
 * Tower (coordinator mode): a session per coordinating conversation (its repository, base and integration branch,
 * objective, test command), its missions (scope globs, tasks, dependencies, branch and worktree, status), the roster
 * of worker and reviewer agents, the inbox, findings, review verdicts and the activity log.
 */
import { defineStoreModule, setClause, type Sql } from '../module';

export type MissionStatus = 'planned' | 'working' | 'review' | 'changes' | 'conflict' | 'merged' | 'cancelled';

export interface TowerSessionRow {
  id: string;
  conversation_id: string;
  repo: string;
  base_branch: string;
  base_commit: string;
  integration_branch: string;
  integration_path: string;
  objective: string;
  tests_command: string | null;
  status: 'active' | 'torn_down';
  plan_status: 'none' | 'approved';
  created_at: number;
}

export interface MissionRow {
  session_id: string;
  id: string;
  title: string;
  /** JSON array of scope globs (relative to the repository root). */
  scope: string;
  /** JSON array of {text, done}. */
  tasks: string;
  /** JSON array of mission ids this one waits for. */
  depends: string;
  status: MissionStatus;
  branch: string | null;
  worktree: string | null;
  /** JSON array of notes and blockers ({kind, text, at}). */
  notes: string;
  merged_commit: string | null;
  updated_at: number;
}

export interface TowerAgentRow {
  id: string;
  session_id: string;
  role: 'worker' | 'reviewer';
  mission_id: string;
  subagent_id: string;
  conversation_id: string;
  created_at: number;
}

export interface TowerMessageRow {
  id: number;
  session_id: string;
  sender: string;
  recipient: string;
  body: string;
  at: number;
}

export interface TowerFindingRow {
  id: number;
  session_id: string;
  sender: string;
  kind: string;
  title: string;
  body: string;
  at: number;
}

export interface TowerReviewRow {
  id: number;
  session_id: string;
  mission_id: string;
  reviewer: string;
  verdict: 'approve' | 'changes';
  commit_sha: string;
  body: string;
  at: number;
}

export const towerModule = defineStoreModule({
  name: 'tower',
  migrations: [
    {
      description: 'tower sessions, missions, roster, inbox, findings, reviews, activity',
      sql: `
      CREATE TABLE tower_sessions (
        id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, repo TEXT NOT NULL, base_branch TEXT NOT NULL, base_commit TEXT NOT NULL,
        integration_branch TEXT NOT NULL, integration_path TEXT NOT NULL, objective TEXT NOT NULL, tests_command TEXT,
        status TEXT NOT NULL, plan_status TEXT NOT NULL DEFAULT 'none', created_at INTEGER NOT NULL
      );
      CREATE INDEX tower_sessions_conversation ON tower_sessions(conversation_id, status);
      CREATE TABLE tower_missions (
        session_id TEXT NOT NULL REFERENCES tower_sessions(id) ON DELETE CASCADE, id TEXT NOT NULL, title TEXT NOT NULL,
        scope TEXT NOT NULL, tasks TEXT NOT NULL, depends TEXT NOT NULL, status TEXT NOT NULL, branch TEXT, worktree TEXT,
        notes TEXT NOT NULL DEFAULT '[]', merged_commit TEXT, updated_at INTEGER NOT NULL, PRIMARY KEY (session_id, id)
      );
      CREATE TABLE tower_agents (
        id TEXT NOT NULL, session_id TEXT NOT NULL REFERENCES tower_sessions(id) ON DELETE CASCADE, role TEXT NOT NULL, mission_id TEXT NOT NULL,
        subagent_id TEXT NOT NULL, conversation_id TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, id)
      );
      CREATE INDEX tower_agents_conversation ON tower_agents(conversation_id);
      CREATE TABLE tower_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, sender TEXT NOT NULL, recipient TEXT NOT NULL, body TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE tower_findings (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, sender TEXT NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE tower_reviews (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, mission_id TEXT NOT NULL, reviewer TEXT NOT NULL, verdict TEXT NOT NULL, commit_sha TEXT NOT NULL, body TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE tower_activity (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, at INTEGER NOT NULL, text TEXT NOT NULL);`,
    },
  ],
  queries: (sql: Sql) => ({
    insertSession(row: Omit<TowerSessionRow, 'created_at' | 'status' | 'plan_status'>): TowerSessionRow {
      sql.run(
        `INSERT INTO tower_sessions (id, conversation_id, repo, base_branch, base_commit, integration_branch, integration_path, objective, tests_command, status, created_at)
         VALUES (@id, @conversation_id, @repo, @base_branch, @base_commit, @integration_branch, @integration_path, @objective, @tests_command, 'active', @now)`,
        { ...row, now: Date.now() },
      );
      return sql.one<TowerSessionRow>('SELECT * FROM tower_sessions WHERE id = ?', row.id)!;
    },
    session: (id: string) => sql.one<TowerSessionRow>('SELECT * FROM tower_sessions WHERE id = ?', id),
    activeFor: (conversationId: string) => sql.one<TowerSessionRow>("SELECT * FROM tower_sessions WHERE conversation_id = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1", conversationId),
    sessions: (limit = 50) => sql.all<TowerSessionRow>('SELECT * FROM tower_sessions ORDER BY created_at DESC LIMIT ?', limit),
    updateSession(id: string, patch: Partial<Pick<TowerSessionRow, 'status' | 'plan_status'>>): void {
      sql.run(`UPDATE tower_sessions SET ${setClause(patch)} WHERE id = @id`, { ...patch, id });
    },
    replaceMissions(sessionId: string, missions: Omit<MissionRow, 'session_id' | 'status' | 'branch' | 'worktree' | 'notes' | 'merged_commit' | 'updated_at'>[]): void {
      sql.run('DELETE FROM tower_missions WHERE session_id = ?', sessionId);
      for (const m of missions) {
        sql.run(
          `INSERT INTO tower_missions (session_id, id, title, scope, tasks, depends, status, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'planned', ?)`,
          sessionId, m.id, m.title, m.scope, m.tasks, m.depends, Date.now(),
        );
      }
    },
    missions: (sessionId: string) => sql.all<MissionRow>('SELECT * FROM tower_missions WHERE session_id = ? ORDER BY rowid', sessionId),
    mission: (sessionId: string, id: string) => sql.one<MissionRow>('SELECT * FROM tower_missions WHERE session_id = ? AND id = ?', sessionId, id),
    updateMission(sessionId: string, id: string, patch: Partial<Omit<MissionRow, 'session_id' | 'id'>>): void {
      const full = { ...sql.fields(patch, ['notes']), updated_at: Date.now() };
      sql.run(`UPDATE tower_missions SET ${setClause(full)} WHERE session_id = @session_id AND id = @mission_id`, { ...full, session_id: sessionId, mission_id: id });
    },
    addAgent(row: Omit<TowerAgentRow, 'created_at'>): void {
      sql.run(
        'INSERT OR REPLACE INTO tower_agents (id, session_id, role, mission_id, subagent_id, conversation_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        row.id, row.session_id, row.role, row.mission_id, row.subagent_id, row.conversation_id, Date.now(),
      );
    },
    agents: (sessionId: string) => sql.all<TowerAgentRow>('SELECT * FROM tower_agents WHERE session_id = ? ORDER BY created_at', sessionId),
    agentByConversation: (conversationId: string) => sql.one<TowerAgentRow>('SELECT * FROM tower_agents WHERE conversation_id = ? ORDER BY created_at DESC LIMIT 1', conversationId),
    send(sessionId: string, sender: string, recipient: string, body: string): number {
      return Number(sql.run('INSERT INTO tower_messages (session_id, sender, recipient, body, at) VALUES (?, ?, ?, ?, ?)', sessionId, sender, recipient, sql.text(body), Date.now()).lastInsertRowid);
    },
    inbox: (sessionId: string, me: string, limit = 50) =>
      sql.all<TowerMessageRow>("SELECT * FROM tower_messages WHERE session_id = ? AND (recipient = ? OR (recipient = 'all' AND sender != ?)) ORDER BY id DESC LIMIT ?", sessionId, me, me, limit),
    messages: (sessionId: string, limit = 200) => sql.all<TowerMessageRow>('SELECT * FROM tower_messages WHERE session_id = ? ORDER BY id DESC LIMIT ?', sessionId, limit),
    finding(sessionId: string, sender: string, kind: string, title: string, body: string): number {
      return Number(sql.run('INSERT INTO tower_findings (session_id, sender, kind, title, body, at) VALUES (?, ?, ?, ?, ?, ?)', sessionId, sender, kind, sql.text(title), sql.text(body), Date.now()).lastInsertRowid);
    },
    findings: (sessionId: string) => sql.all<TowerFindingRow>('SELECT * FROM tower_findings WHERE session_id = ? ORDER BY id', sessionId),
    review(row: Omit<TowerReviewRow, 'id' | 'at'>): number {
      return Number(
        sql.run('INSERT INTO tower_reviews (session_id, mission_id, reviewer, verdict, commit_sha, body, at) VALUES (?, ?, ?, ?, ?, ?, ?)', row.session_id, row.mission_id, row.reviewer, row.verdict, row.commit_sha, sql.text(row.body), Date.now()).lastInsertRowid,
      );
    },
    latestReview: (sessionId: string, missionId: string) => sql.one<TowerReviewRow>('SELECT * FROM tower_reviews WHERE session_id = ? AND mission_id = ? ORDER BY id DESC LIMIT 1', sessionId, missionId),
    reviews: (sessionId: string) => sql.all<TowerReviewRow>('SELECT * FROM tower_reviews WHERE session_id = ? ORDER BY id', sessionId),
    log(sessionId: string, text: string): void {
      sql.run('INSERT INTO tower_activity (session_id, at, text) VALUES (?, ?, ?)', sessionId, Date.now(), sql.text(text.slice(0, 2000)));
    },
    activity: (sessionId: string, limit = 100) => sql.all<{ id: number; at: number; text: string }>('SELECT * FROM (SELECT * FROM tower_activity WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id', sessionId, limit),
  }),
});
