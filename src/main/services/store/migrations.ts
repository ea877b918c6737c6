import { URL_GRANTS_MIGRATION } from './url-grants';

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
  // 2: background tasks (commands, job batches and their jobs, wait_for), the process groups Deskhand must end, and
  // each conversation's sandbox mode
  `
  ALTER TABLE conversations ADD COLUMN sandbox TEXT NOT NULL DEFAULT 'workspace-write';
  CREATE TABLE background_tasks (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    run_id TEXT,
    call_id TEXT,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    spec TEXT NOT NULL DEFAULT '{}',
    progress TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL CHECK (status IN ('running','finished','failed','cancelled','timed_out','interrupted')),
    background INTEGER NOT NULL DEFAULT 1,
    exit_code INTEGER,
    summary TEXT,
    output_path TEXT,
    owner_pid INTEGER,
    owner_start TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    notify INTEGER NOT NULL DEFAULT 1,
    notified_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER
  );
  CREATE INDEX background_tasks_conversation ON background_tasks(conversation_id, created_at);
  CREATE INDEX background_tasks_status ON background_tasks(status, notified_at);
  CREATE TABLE background_jobs (
    task_id TEXT NOT NULL REFERENCES background_tasks(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    command TEXT NOT NULL,
    cwd TEXT NOT NULL,
    retries INTEGER NOT NULL DEFAULT 0,
    timeout_ms INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending','running','succeeded','failed','cancelled','interrupted')),
    attempts INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    note TEXT,
    next_attempt_at INTEGER,
    output_path TEXT,
    tail TEXT,
    started_at INTEGER,
    finished_at INTEGER,
    PRIMARY KEY (task_id, idx)
  );
  CREATE TABLE process_groups (
    pgid INTEGER NOT NULL,
    start_time TEXT NOT NULL,
    tag TEXT NOT NULL,
    task_id TEXT,
    owner_pid INTEGER NOT NULL,
    owner_start TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (pgid, start_time)
  );
  `,
  // 3: security core: taint kept per conversation (survives new runs, resumes, subagents and summaries), input
  // requests beside approvals (ask_user_secret parks like an approval), the path checks a call was decided on (the
  // tool is refused when a path resolves elsewhere by the time it runs), and names + descriptions of saved secrets
  // (values stay in the OS keyring)
  `
  ALTER TABLE conversations ADD COLUMN tainted INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE approvals ADD COLUMN kind TEXT NOT NULL DEFAULT 'approval';
  ALTER TABLE tool_calls ADD COLUMN paths TEXT;
  CREATE TABLE secrets (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // 4: input requests of every kind: what the person is shown (request) and their answer (redacted JSON)
  `
  ALTER TABLE approvals ADD COLUMN request TEXT;
  ALTER TABLE approvals ADD COLUMN answer TEXT;
  `,
  // 5: URL grants (url-grants.ts)
  URL_GRANTS_MIGRATION,
];
