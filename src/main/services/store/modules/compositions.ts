/**
 * Compositions (issue 17): what the agent makes for the person to look at — one row per composition, one per version
 * (a revision links to the version it revises), and the person's review (comments, approval, change requests). The
 * bytes of each version are files in the data dir (`compositions/<id>/v<n>.<ext>`); rows hold their sha256.
 */
import { defineStoreModule, type Sql } from '../module';

export type CompositionKind = 'html' | 'svg' | 'image' | 'markdown';
export type ReviewState = 'pending' | 'approved' | 'changes_requested';

export interface CompositionRow {
  id: string;
  conversation_id: string | null;
  title: string;
  kind: CompositionKind;
  created_at: number;
  updated_at: number;
  /** The version the person approved (publish sends exactly its bytes), or null. */
  approved_version: number | null;
}

export interface CompositionVersionRow {
  composition_id: string;
  version: number;
  /** The version this one revises (null for the first). */
  revises: number | null;
  file: string;
  mime: string;
  bytes: number;
  sha256: string;
  review: ReviewState;
  created_at: number;
}

export interface CompositionCommentRow {
  id: number;
  composition_id: string;
  version: number;
  kind: 'comment' | 'approve' | 'changes';
  text: string;
  created_at: number;
}

export const compositionsModule = defineStoreModule({
  name: 'compositions',
  migrations: [
    {
      description: 'compositions, their versions and review comments',
      sql: `CREATE TABLE compositions (
              id TEXT PRIMARY KEY,
              conversation_id TEXT REFERENCES conversations(id) ON DELETE SET NULL,
              title TEXT NOT NULL,
              kind TEXT NOT NULL,
              created_at INTEGER NOT NULL,
              updated_at INTEGER NOT NULL,
              approved_version INTEGER);
            CREATE TABLE composition_versions (
              composition_id TEXT NOT NULL REFERENCES compositions(id) ON DELETE CASCADE,
              version INTEGER NOT NULL,
              revises INTEGER,
              file TEXT NOT NULL,
              mime TEXT NOT NULL,
              bytes INTEGER NOT NULL,
              sha256 TEXT NOT NULL,
              review TEXT NOT NULL DEFAULT 'pending',
              created_at INTEGER NOT NULL,
              PRIMARY KEY (composition_id, version));
            CREATE TABLE composition_comments (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              composition_id TEXT NOT NULL REFERENCES compositions(id) ON DELETE CASCADE,
              version INTEGER NOT NULL,
              kind TEXT NOT NULL,
              text TEXT NOT NULL,
              created_at INTEGER NOT NULL);
            CREATE INDEX compositions_by_conversation ON compositions(conversation_id, updated_at)`,
    },
  ],
  queries: (sql: Sql) => ({
    insert: (r: CompositionRow) =>
      void sql.run(
        'INSERT INTO compositions (id, conversation_id, title, kind, created_at, updated_at, approved_version) VALUES (@id, @conversation_id, @title, @kind, @created_at, @updated_at, @approved_version)',
        r,
      ),
    addVersion: (v: CompositionVersionRow, title: string) =>
      sql.transaction(() => {
        sql.run(
          'INSERT INTO composition_versions (composition_id, version, revises, file, mime, bytes, sha256, review, created_at) VALUES (@composition_id, @version, @revises, @file, @mime, @bytes, @sha256, @review, @created_at)',
          v,
        );
        sql.run('UPDATE compositions SET updated_at = ?, title = ? WHERE id = ?', v.created_at, title, v.composition_id);
      }),
    get: (id: string) => sql.one<CompositionRow>('SELECT * FROM compositions WHERE id = ?', id),
    list: (conversationId: string | null, limit: number) =>
      conversationId === null
        ? sql.all<CompositionRow>('SELECT * FROM compositions ORDER BY updated_at DESC LIMIT ?', limit)
        : sql.all<CompositionRow>('SELECT * FROM compositions WHERE conversation_id = ? ORDER BY updated_at DESC LIMIT ?', conversationId, limit),
    versions: (id: string) => sql.all<CompositionVersionRow>('SELECT * FROM composition_versions WHERE composition_id = ? ORDER BY version', id),
    version: (id: string, version: number) =>
      sql.one<CompositionVersionRow>('SELECT * FROM composition_versions WHERE composition_id = ? AND version = ?', id, version),
    latestVersion: (id: string) => sql.one<{ v: number | null }>('SELECT MAX(version) AS v FROM composition_versions WHERE composition_id = ?', id)?.v ?? 0,
    comments: (id: string) => sql.all<CompositionCommentRow>('SELECT * FROM composition_comments WHERE composition_id = ? ORDER BY id', id),
    review: (id: string, version: number, kind: CompositionCommentRow['kind'], text: string, at: number) =>
      sql.transaction(() => {
        sql.run('INSERT INTO composition_comments (composition_id, version, kind, text, created_at) VALUES (?, ?, ?, ?, ?)', id, version, kind, text, at);
        if (kind === 'approve') {
          sql.run("UPDATE composition_versions SET review = CASE WHEN version = ? THEN 'approved' WHEN review = 'approved' THEN 'pending' ELSE review END WHERE composition_id = ?", version, id);
          sql.run('UPDATE compositions SET approved_version = ?, updated_at = ? WHERE id = ?', version, at, id);
        } else if (kind === 'changes') {
          sql.run("UPDATE composition_versions SET review = 'changes_requested' WHERE composition_id = ? AND version = ?", id, version);
          sql.run('UPDATE compositions SET approved_version = CASE WHEN approved_version = ? THEN NULL ELSE approved_version END, updated_at = ? WHERE id = ?', version, at, id);
        } else {
          sql.run('UPDATE compositions SET updated_at = ? WHERE id = ?', at, id);
        }
      }),
  }),
});
