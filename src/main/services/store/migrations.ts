/**
 * Schema migrations, applied in order by `user_version`. A migration only ever adds: rows are never lost.
 * Each runs in one transaction with the version bump, so a crash leaves either the old schema or the new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: conversations, messages, runs, tool calls, approvals, rules
  `
  CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    folder TEXT NOT NULL,
    policy TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    run_id TEXT,
    role TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
    content TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX messages_conversation ON messages(conversation_id, id);
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    policy TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    base_url TEXT,
    step INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    tainted INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    owner_pid INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX runs_conversation ON runs(conversation_id, created_at);
  CREATE INDEX runs_status ON runs(status);
  CREATE TABLE tool_calls (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    position INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    args_sha256 TEXT NOT NULL,
    risk TEXT,
    decision TEXT,
    reasons TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL,
    output TEXT,
    is_error INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (run_id, call_id)
  );
  CREATE INDEX tool_calls_run ON tool_calls(run_id, step, position);
  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL REFERENCES tool_calls(id) ON DELETE CASCADE,
    tool TEXT NOT NULL,
    args_sha256 TEXT NOT NULL,
    risk TEXT NOT NULL,
    reasons TEXT NOT NULL,
    description TEXT NOT NULL,
    preview TEXT,
    always_pattern TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending','approved','denied','expired')),
    always INTEGER NOT NULL DEFAULT 0,
    reason TEXT,
    created_at INTEGER NOT NULL,
    decided_at INTEGER
  );
  CREATE INDEX approvals_status ON approvals(status);
  CREATE TABLE rules (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    pattern TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (tool, pattern)
  );
  `,
];
