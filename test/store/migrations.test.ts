import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { defineStoreModule } from '../../src/main/services/store/module';
import { STORE_MODULES } from '../../src/main/services/store/modules/index';
import { Store } from '../../src/main/services/store/store';
import { rawAll, withRawDb } from '../support/raw-db';
import { makeContext, tempDir } from '../support/tool-context';
import { memoryModule } from '../../src/main/services/store/modules/memory';
import { StoreMemoryService } from '../../src/main/services/memory/memory-service';
import { createViewScratchpad } from '../../src/main/tools/memory/scratchpad';
import { LEGACY_MIGRATIONS } from './fixtures/legacy-migrations';

type Row = Record<string, unknown>;
const T = 1_700_000_000_000;

/** Rows for every table any earlier schema had, with a value for every column any earlier schema had (none default). */
const SEED: Record<string, Row[]> = {
  conversations: [
    { id: 'c1', title: 'first', folder: '/w/one', policy: 'read-only', state: '{"todos":[1]}', sandbox: 'off', tainted: 1, created_at: T, updated_at: T + 1 },
    { id: 'c2', title: 'second', folder: '/w/two', policy: 'none', state: '{}', sandbox: 'read-only', tainted: 0, created_at: T + 2, updated_at: T + 3 },
  ],
  messages: [
    { id: 1, conversation_id: 'c1', run_id: 'r1', role: 'user', content: '"hello"', created_at: T },
    { id: 7, conversation_id: 'c1', run_id: 'r1', role: 'assistant', content: '[{"type":"text","text":"hi"}]', created_at: T + 1 },
    { id: 9, conversation_id: 'c2', run_id: null, role: 'system', content: '"s"', created_at: T + 2 },
  ],
  runs: [
    { id: 'r1', conversation_id: 'c1', status: 'parked', policy: 'read-only', provider: 'openai', model: 'gpt', base_url: 'http://x', step: 3, input_tokens: 11, output_tokens: 22, tainted: 1, error: null, owner_pid: 4242, created_at: T, updated_at: T + 5 },
    { id: 'r2', conversation_id: 'c2', status: 'failed', policy: 'none', provider: 'anthropic', model: 'claude', base_url: null, step: 1, input_tokens: 0, output_tokens: 0, tainted: 0, error: 'boom', owner_pid: null, created_at: T + 1, updated_at: T + 6 },
  ],
  tool_calls: [
    { id: 'tc1', run_id: 'r1', step: 1, position: 0, call_id: 'call_1', tool: 'write_file', args: '{"path":"a"}', args_sha256: 'h1', risk: 'high-risk', decision: 'ask', reasons: '["r"]', status: 'awaiting_approval', output: null, is_error: 0, paths: '[{"path":"a"}]', created_at: T, finished_at: null },
    { id: 'tc2', run_id: 'r1', step: 1, position: 1, call_id: 'call_2', tool: 'ask_user_secret', args: '{"name":"K"}', args_sha256: 'h2', risk: 'low-risk', decision: 'ask', reasons: '[]', status: 'done', output: 'ok', is_error: 1, paths: null, created_at: T + 1, finished_at: T + 2 },
  ],
  approvals: [
    { id: 'a1', run_id: 'r1', tool_call_id: 'tc1', tool: 'write_file', args_sha256: 'h1', risk: 'high-risk', reasons: '["r"]', description: 'Write a', preview: 'diff', always_pattern: 'a', status: 'pending', always: 0, reason: null, kind: 'approval', created_at: T, decided_at: null },
    { id: 'a2', run_id: 'r1', tool_call_id: 'tc2', tool: 'ask_user_secret', args_sha256: 'h2', risk: 'low-risk', reasons: '[]', description: 'Key', preview: 'why', always_pattern: null, status: 'approved', always: 1, reason: 'fine', kind: 'secret', created_at: T + 1, decided_at: T + 2 },
  ],
  rules: [{ id: 'rule1', tool: 'execute_command', pattern: 'npm test', created_at: T }],
  background_tasks: [
    { id: 'cmd_1', conversation_id: 'c1', run_id: 'r1', call_id: 'call_1', kind: 'command', title: 'sleep', spec: '{"command":"sleep 1"}', progress: '{"n":1}', status: 'finished', background: 0, exit_code: 3, summary: 'done', output_path: '/d/t.log', owner_pid: 99, owner_start: 'b:1', cancel_requested: 1, notify: 0, notified_at: T + 4, created_at: T, updated_at: T + 4, finished_at: T + 3 },
  ],
  background_jobs: [
    { task_id: 'cmd_1', idx: 0, command: 'make', cwd: '/w', retries: 2, timeout_ms: 1000, status: 'failed', attempts: 2, exit_code: 1, note: 'n', next_attempt_at: T + 9, output_path: '/d/j.log', tail: 'err', started_at: T, finished_at: T + 1 },
  ],
  process_groups: [{ pgid: 1234, start_time: 'b:5', tag: 'tag1', task_id: 'cmd_1', owner_pid: 77, owner_start: 'b:2', created_at: T }],
  secrets: [{ name: 'GITHUB_TOKEN', description: 'token for acme', created_at: T, updated_at: T + 1 }],
};

/** Columns that later schemas added to tables that existed before, and the value an old row must get. */
const ADDED_DEFAULTS: Record<string, Row> = {
  conversations: { sandbox: 'workspace-write', tainted: 0, taint_only: null },
  tool_calls: { paths: null },
  approvals: { kind: 'approval', request: null, answer: null, task_id: null },
  runs: { owner_start: null, cache_read_tokens: 0, cache_write_tokens: 0 },
  rules: { scope: 'everywhere', scope_value: null, source: 'saved before rules had scopes', match_count: 0, last_matched_at: null, run_id: null, expires_at: null },
};

function columns(db: Database.Database, table: string): string[] {
  return (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
}

function tables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
}

/** A database as a build of the shared-counter era left it at `version`, with rows in every table it had. */
function legacyDatabase(version: number): { dir: string; before: Record<string, Row[]> } {
  const dir = tempDir('deskhand-legacy-');
  const before: Record<string, Row[]> = {};
  withRawDb(dir, (db) => {
    db.pragma('journal_mode = WAL');
    for (const sql of LEGACY_MIGRATIONS.slice(0, version)) db.exec(sql);
    db.pragma(`user_version = ${version}`);
    const existing = tables(db);
    const unseeded = existing.filter((t) => !(t in SEED) && t !== 'sqlite_sequence');
    if (unseeded.length > 0) throw new Error(`no seed rows for ${unseeded.join(', ')}: add some to this test`);
    // In SEED's order, which respects the foreign keys.
    for (const [table, rows] of Object.entries(SEED).filter(([t]) => existing.includes(t))) {
      const cols = columns(db, table);
      for (const row of rows) {
        const keys = cols.filter((c) => c in row);
        db.prepare(`INSERT INTO ${table} (${keys.join(',')}) VALUES (${keys.map((k) => `@${k}`).join(',')})`).run(Object.fromEntries(keys.map((k) => [k, row[k]])));
      }
      before[table] = db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all() as Row[];
      expect(before[table]).toHaveLength(rows.length);
    }
  });
  return { dir, before };
}

/** Everything about a schema that matters to the code: columns, indexes and foreign keys of every table. */
function schemaOf(dir: string): unknown {
  return withRawDb(dir, (db) =>
    Object.fromEntries(
      tables(db).map((t) => [
        t,
        {
          columns: db.prepare(`PRAGMA table_info("${t}")`).all(),
          indexes: (db.prepare(`PRAGMA index_list("${t}")`).all() as { name: string; unique: number }[])
            .map((i) => ({ unique: i.unique, on: (db.prepare(`PRAGMA index_info("${i.name}")`).all() as { name: string }[]).map((c) => c.name) }))
            .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
          foreignKeys: db.prepare(`PRAGMA foreign_key_list("${t}")`).all(),
        },
      ]),
    ),
  );
}

describe('databases from every earlier schema', () => {
  const fresh = tempDir('deskhand-fresh-');
  new Store(fresh).close();

  it.each(LEGACY_MIGRATIONS.map((_, i) => i + 1))('user_version %i migrates to the current schema with every row kept', (version) => {
    const { dir, before } = legacyDatabase(version);
    const store = new Store(dir);
    store.close();

    expect(schemaOf(dir)).toEqual(schemaOf(fresh));
    expect(rawAll(dir, 'PRAGMA foreign_key_check')).toEqual([]);
    const books = rawAll<{ name: string; version: number }>(dir, 'SELECT name, version FROM schema_modules');
    expect(new Map(books.map((b) => [b.name, b.version]))).toEqual(new Map(STORE_MODULES.map((m) => [m.name, m.migrations.length])));

    for (const [table, rows] of Object.entries(before)) {
      const after = rawAll<Row>(dir, `SELECT * FROM ${table} ORDER BY rowid`);
      expect(after, table).toHaveLength(rows.length);
      after.forEach((row, i) => {
        const old = rows[i]!;
        for (const [col, value] of Object.entries(row)) {
          if (col in old) expect(value, `${table}.${col}`).toEqual(old[col]);
          else {
            expect(ADDED_DEFAULTS[table] ?? {}, `${table}.${col} is new: give its default in ADDED_DEFAULTS`).toHaveProperty(col);
            expect(value, `${table}.${col}`).toEqual(ADDED_DEFAULTS[table]![col]);
          }
        }
      });
    }
  });

  it('a migrated database keeps working through the Store', () => {
    const { dir } = legacyDatabase(1);
    const store = new Store(dir);
    expect(store.getConversation('c1')).toMatchObject({ title: 'first', sandbox: 'workspace-write', tainted: 0 });
    expect(store.listMessages('c1').map((m) => m.id)).toEqual([1, 7]);
    expect(store.addMessage('c1', null, 'user', 'more')).toBe(10); // AUTOINCREMENT carries on past the old ids
    expect(store.latestApprovalForCall('tc1')).toMatchObject({ id: 'a1', kind: 'approval', request: null });
    expect(store.answerApproval('a1', 'approved', '{"ok":true}', null)).toBe(true);
    expect(store.getApproval('a1')).toMatchObject({ status: 'approved', answer: '{"ok":true}' });
    store.describeSecret('NEW', 'added after migrating');
    store.close();
    expect(rawAll(dir, 'SELECT name FROM secrets')).toEqual([{ name: 'NEW' }]);
  });

  it('a new store module adds its tables to an existing database, and later migrations of it apply once', () => {
    const { dir } = legacyDatabase(LEGACY_MIGRATIONS.length);
    const v1 = defineStoreModule({
      name: 'reminders-test',
      migrations: [{ description: 'reminders', sql: 'CREATE TABLE reminders_test (id TEXT PRIMARY KEY, at INTEGER NOT NULL)' }],
      queries: (sql) => ({ add: (id: string) => sql.run('INSERT INTO reminders_test (id, at) VALUES (?, ?)', id, 1).changes }),
    });
    const store = new Store(dir, { modules: [v1] });
    expect(store.module(v1).add('x')).toBe(1);
    store.close();
    const v2 = defineStoreModule({ ...v1, migrations: [...v1.migrations, { description: 'note', sql: "ALTER TABLE reminders_test ADD COLUMN note TEXT NOT NULL DEFAULT ''" }] });
    new Store(dir, { modules: [v2] }).close();
    new Store(dir, { modules: [v2] }).close();
    expect(rawAll(dir, 'SELECT * FROM reminders_test')).toEqual([{ id: 'x', at: 1, note: '' }]);
    expect(rawAll(dir, "SELECT version FROM schema_modules WHERE name = 'reminders-test'")).toEqual([{ version: 2 }]);
    expect(rawAll(dir, 'SELECT count(*) AS n FROM conversations')).toEqual([{ n: 2 }]);
    // A store opened without the module leaves its tables and books alone.
    new Store(dir).close();
    expect(rawAll(dir, 'SELECT count(*) AS n FROM reminders_test')).toEqual([{ n: 1 }]);
  });

  it('a failing migration leaves the database as it was', () => {
    const { dir, before } = legacyDatabase(2);
    const broken = defineStoreModule({ name: 'broken', migrations: [{ description: 'bad', sql: 'CREATE TABLE nope (' }], queries: () => ({}) });
    expect(() => new Store(dir, { modules: [broken] })).toThrow();
    withRawDb(dir, (db) => {
      expect(db.pragma('user_version', { simple: true })).toBe(2);
      expect(tables(db)).toEqual(Object.keys(before).sort());
      expect(columns(db, 'conversations')).not.toContain('tainted');
    });
  });
});

describe('the scratchpad moves from each conversation to its workspace', () => {
  /** A database as the build before the workspace scratchpad left it: memory at its third migration, pads in each conversation's state. */
  function perConversationPads(rows: { id: string; title: string; folder: string; state: string; tainted?: number; created_at: number }[]): string {
    const dir = tempDir('deskhand-pads-');
    new Store(dir).close();
    withRawDb(dir, (db) => {
      db.exec("DROP TABLE scratchpads; UPDATE schema_modules SET version = 3 WHERE name = 'memory';");
      const ins = db.prepare("INSERT INTO conversations (id, title, folder, policy, state, tainted, created_at, updated_at) VALUES (@id, @title, @folder, 'read-only', @state, @tainted, @created_at, @created_at)");
      for (const r of rows) ins.run({ tainted: 0, ...r });
    });
    return dir;
  }
  const pad = (text: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ cwd: '/w', todos: [], slots: { scratchpad: text, plan_mode: true, ...extra } });

  it('every per-conversation pad lands in its folder\'s pad, oldest first, and stays in the conversation too', () => {
    const rows = [
      { id: 'a2', title: 'later', folder: '/w/one', state: pad('second notes'), created_at: T + 10 },
      { id: 'a1', title: 'earlier', folder: '/w/one', state: pad('first notes\nline two'), tainted: 1, created_at: T },
      { id: 'b1', title: 'alone', folder: '/w/two', state: pad('only notes'), created_at: T + 5 },
      { id: 'c1', title: 'empty', folder: '/w/three', state: pad(''), created_at: T },
      { id: 'c2', title: 'none', folder: '/w/three', state: JSON.stringify({ cwd: '/w' }), created_at: T },
      { id: 'c3', title: 'odd', folder: '/w/three', state: pad(42), created_at: T },
      { id: 'c4', title: 'damaged', folder: '/w/three', state: '{not json', created_at: T },
    ];
    const dir = perConversationPads(rows);
    const before = rawAll(dir, 'SELECT id, state FROM conversations ORDER BY id');
    const store = new Store(dir);
    store.close();
    expect(rawAll(dir, 'SELECT workspace, text, tainted FROM scratchpads ORDER BY workspace')).toEqual([
      { workspace: '/w/one', text: '[from the conversation "earlier"]\nfirst notes\nline two\n\n[from the conversation "later"]\nsecond notes', tainted: 1 },
      { workspace: '/w/two', text: 'only notes', tainted: 0 },
    ]);
    // Nothing is taken out of the conversations (a build that still reads the old slot finds it where it was).
    expect(rawAll(dir, 'SELECT id, state FROM conversations ORDER BY id')).toEqual(before);
    expect(rawAll(dir, "SELECT version FROM schema_modules WHERE name = 'memory'")).toEqual([{ version: memoryModule.migrations.length }]);
  });

  it('the migrated pad is what view_scratchpad shows in that folder', async () => {
    const dir = perConversationPads([{ id: 'a1', title: 'earlier', folder: '/w/one', state: pad('kept across the upgrade'), created_at: T }]);
    const store = new Store(dir);
    try {
      const memory = new StoreMemoryService(store);
      expect(memory.scratchpad('/w/one')).toMatchObject({ text: 'kept across the upgrade', tainted: 0 });
      const view = createViewScratchpad(memory, () => '/w/one');
      expect((await view.execute({}, makeContext('/w/one'))).output).toMatch(/^Scratchpad \(23 bytes, updated [^)]+\):\nkept across the upgrade$/);
    } finally {
      store.close();
    }
  });
});
