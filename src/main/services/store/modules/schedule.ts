/**
 * Reminders and triggers (`schedules`) and their fires (`schedule_fires`). A fire is claimed before anything runs:
 * the row (schedule_id, due_at) is unique, so of every process that reaches a due time (the OS job, the in-app
 * ticker, a second job) exactly one inserts it and runs it. A claim whose process died before it finished is taken
 * over by the next process that looks (`takeOverStale`), so a crash between claim and run is recovered, still once.
 */
import { randomUUID } from 'node:crypto';
import { defineStoreModule, type Sql } from '../module';

export type ScheduleKind = 'reminder' | 'trigger';
export type ScheduleStatus = 'active' | 'paused' | 'done' | 'cancelled' | 'expired';
export type FireStatus = 'claimed' | 'notified' | 'ran' | 'parked' | 'failed' | 'busy' | 'interrupted';

export interface ScheduleRow {
  id: string;
  kind: ScheduleKind;
  conversation_id: string | null;
  /** The reminder's text, or the trigger's prompt. */
  text: string;
  /** Recurring triggers: a 5-field cron expression. */
  cron: string | null;
  tz: string;
  /** The next fire time (jitter applied), epoch ms; null when nothing is left to fire. */
  next_at: number | null;
  status: ScheduleStatus;
  created_at: number;
  renewed_at: number;
  /** Recurring: renewed_at + 7 days; the fire past it is the last (stale). */
  expires_at: number | null;
  /** The OS scheduler that holds the job (`at`, `launchd`, `schtasks`, `systemd`), and its job reference. */
  os_backend: string | null;
  os_job: string | null;
  /** Why no OS job holds it (the in-app ticker fires it then). */
  os_note: string | null;
  /** Last fired slot, for coalescing missed fires. */
  last_fired_at: number | null;
}

export interface FireRow {
  id: string;
  schedule_id: string;
  due_at: number;
  claimed_at: number;
  claimed_by: string;
  status: FireStatus;
  run_id: string | null;
  coalesced: number;
  stale: number;
  via: string;
  finished_at: number | null;
  detail: string | null;
  /** What the person did from the notification (`dismissed`, `snoozed until …`, `opened`), and when. */
  acted: string | null;
  acted_at: number | null;
}

export const scheduleModule = defineStoreModule({
  name: 'schedule',
  migrations: [
    {
      description: 'reminders, triggers and their fires',
      sql: `
      CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('reminder', 'trigger')),
        conversation_id TEXT REFERENCES conversations(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        cron TEXT,
        tz TEXT NOT NULL,
        next_at INTEGER,
        status TEXT NOT NULL DEFAULT 'active',
        created_at INTEGER NOT NULL,
        renewed_at INTEGER NOT NULL,
        expires_at INTEGER,
        os_backend TEXT,
        os_job TEXT,
        os_note TEXT,
        last_fired_at INTEGER
      );
      CREATE INDEX schedules_due ON schedules(status, next_at);
      CREATE TABLE schedule_fires (
        id TEXT PRIMARY KEY,
        schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
        due_at INTEGER NOT NULL,
        claimed_at INTEGER NOT NULL,
        claimed_by TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'claimed',
        run_id TEXT,
        coalesced INTEGER NOT NULL DEFAULT 1,
        stale INTEGER NOT NULL DEFAULT 0,
        via TEXT NOT NULL,
        finished_at INTEGER,
        detail TEXT,
        UNIQUE (schedule_id, due_at)
      );
      CREATE INDEX schedule_fires_status ON schedule_fires(status);`,
    },
    {
      description: "what the person did from a fire's notification (snooze, dismiss, open)",
      sql: `
      ALTER TABLE schedule_fires ADD COLUMN acted TEXT;
      ALTER TABLE schedule_fires ADD COLUMN acted_at INTEGER;`,
    },
  ],
  queries: (sql: Sql) => {
    const get = (id: string) => sql.one<ScheduleRow>('SELECT * FROM schedules WHERE id = ?', id) ?? null;
    const fire = (id: string) => sql.one<FireRow>('SELECT * FROM schedule_fires WHERE id = ?', id) ?? null;
    return {
      get,
      fire,
      insert(row: ScheduleRow): ScheduleRow {
        sql.run(
          `INSERT INTO schedules (id, kind, conversation_id, text, cron, tz, next_at, status, created_at, renewed_at, expires_at, os_backend, os_job, os_note, last_fired_at)
           VALUES (@id, @kind, @conversation_id, @text, @cron, @tz, @next_at, @status, @created_at, @renewed_at, @expires_at, @os_backend, @os_job, @os_note, @last_fired_at)`,
          row,
        );
        return get(row.id)!;
      },
      update(id: string, patch: Partial<Omit<ScheduleRow, 'id' | 'kind'>>): ScheduleRow | null {
        const keys = Object.keys(patch) as (keyof typeof patch)[];
        if (keys.length) sql.run(`UPDATE schedules SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`, { ...patch, id });
        return get(id);
      },
      list(opts: { kind?: ScheduleKind; conversationId?: string; live?: boolean } = {}): ScheduleRow[] {
        const where: string[] = [];
        const params: unknown[] = [];
        if (opts.kind) {
          where.push('kind = ?');
          params.push(opts.kind);
        }
        if (opts.conversationId) {
          where.push('conversation_id = ?');
          params.push(opts.conversationId);
        }
        if (opts.live) where.push("status IN ('active', 'paused')");
        return sql.all<ScheduleRow>(`SELECT * FROM schedules ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY COALESCE(next_at, created_at), id`, ...params);
      },
      countActiveTriggers: (conversationId: string | null) =>
        sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM schedules WHERE kind = 'trigger' AND status IN ('active', 'paused') AND conversation_id IS ?", conversationId)!.n,
      /** Active schedules due at `now` (next_at <= now). */
      due: (now: number) => sql.all<ScheduleRow>("SELECT * FROM schedules WHERE status = 'active' AND next_at IS NOT NULL AND next_at <= ? ORDER BY next_at", now),
      /** Inserts the claim; null when another process claimed this slot first. */
      claim(scheduleId: string, dueAt: number, by: string, via: string, coalesced: number, stale: boolean): FireRow | null {
        const id = `fire_${randomUUID().slice(0, 8)}`;
        const r = sql.run(
          'INSERT OR IGNORE INTO schedule_fires (id, schedule_id, due_at, claimed_at, claimed_by, status, coalesced, stale, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          id,
          scheduleId,
          dueAt,
          Date.now(),
          by,
          'claimed',
          coalesced,
          stale ? 1 : 0,
          via,
        );
        return r.changes > 0 ? fire(id) : null;
      },
      /** Claims still open (nothing recorded their end). */
      openClaims: () => sql.all<FireRow>("SELECT * FROM schedule_fires WHERE status = 'claimed' ORDER BY claimed_at"),
      /** Moves a dead process's claim to `by`; false when someone else took it first. */
      takeOver: (fireId: string, from: string, by: string) =>
        sql.run("UPDATE schedule_fires SET claimed_by = ?, claimed_at = ? WHERE id = ? AND status = 'claimed' AND claimed_by = ?", by, Date.now(), fireId, from).changes > 0,
      setFire(fireId: string, patch: Partial<Pick<FireRow, 'status' | 'run_id' | 'detail' | 'finished_at' | 'acted' | 'acted_at'>>): void {
        const keys = Object.keys(patch) as (keyof typeof patch)[];
        if (keys.length) sql.run(`UPDATE schedule_fires SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`, { ...patch, id: fireId });
      },
      /** The fires of a conversation's reminders that rang (or failed to), oldest first, with the reminder's text. */
      reminderFires: (conversationId: string, limit = 200) =>
        sql.all<FireRow & { text: string; tz: string }>(
          `SELECT f.*, s.text AS text, s.tz AS tz FROM schedule_fires f JOIN schedules s ON s.id = f.schedule_id
           WHERE s.conversation_id = ? AND s.kind = 'reminder' AND f.status IN ('notified', 'failed') ORDER BY f.claimed_at LIMIT ?`,
          conversationId,
          limit,
        ),
      fires: (scheduleId: string | null, limit = 50) =>
        scheduleId
          ? sql.all<FireRow>('SELECT * FROM schedule_fires WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?', scheduleId, limit)
          : sql.all<FireRow>('SELECT * FROM schedule_fires ORDER BY claimed_at DESC LIMIT ?', limit),
    };
  },
});
