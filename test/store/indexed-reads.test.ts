/**
 * What an agent step reads, it reads by an index: a store a person has used for months holds thousands of subagents,
 * messages, holds and steering messages, and a statement that scans a whole table on every step (or every map call)
 * makes each step slower as the store grows. Every statement a real turn runs — a tool call, a map of two subagents,
 * the closing text — is caught as it runs, and SQLite's own plan for it (EXPLAIN QUERY PLAN, with the parameters it
 * ran with) may scan no table but the small lists a person keeps (MCP servers, URL grants), read whole on purpose.
 */
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { subagentsModule } from '../../src/main/services/store/modules/subagents';
import { openSubHarness, route, type SubHarness } from '../subagents/harness';
import { reply } from '../support/model-server';

/** Tables read whole on purpose: a person's own short lists. */
const WHOLE_LISTS = new Set(['mcp_servers', 'url_grants']);

const caught = new Map<string, { db: Database.Database; params: unknown[] }>();
let catching = false;
const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
const originals = new Map<string, (...a: unknown[]) => unknown>();
for (const m of ['run', 'get', 'all', 'iterate']) {
  const orig = proto[m]!;
  originals.set(m, orig);
  proto[m] = function (this: Database.Statement, ...params: unknown[]) {
    if (catching && !caught.has(this.source)) caught.set(this.source, { db: this.database, params });
    return orig.apply(this, params);
  };
}

let h: SubHarness | null = null;
afterAll(async () => {
  for (const [m, orig] of originals) proto[m] = orig;
  await h?.close();
});

describe('the statements of a turn', () => {
  it('read by an index: no table scanned but the short lists a person keeps', async () => {
    h = await openSubHarness();
    writeFileSync(join(h.work, 'a.txt'), 'hello\n');
    route(h, { 'ITEM 1': [reply().text('one')], 'ITEM 2': [reply().text('two')] }, [
      reply().tool('stat', { path: 'a.txt' }),
      reply().tool('map_subagents', { prompt_template: 'ITEM {{input}}: say it', items: ['1', '2'], description: 'two', max_concurrency: 1 }),
      reply().text('done'),
    ]);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    catching = true;
    const out = await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    catching = false;
    expect(out.status, out.error ?? '').toBe('finished');
    // The map ran: its children's conversations are in the store.
    const map = h.store.toolCallsForConversation(conv.id).find((c) => c.tool === 'map_subagents')!;
    expect(h.store.module(subagentsModule).forCall(map.run_id, map.call_id).map((s) => s.status)).toEqual(['finished', 'finished']);

    const scans: string[] = [];
    let planned = 0;
    for (const [sql, { db, params }] of caught) {
      if (/^\s*(PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(sql)) continue;
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
      planned++;
      for (const step of plan) {
        const scan = /^SCAN (\w+)/.exec(step);
        // Virtual tables (full-text search, json_each, pragma functions) and one-row constants are not table scans.
        if (!scan || /VIRTUAL TABLE|CONSTANT ROW/.test(step) || WHOLE_LISTS.has(scan[1]!)) continue;
        scans.push(`${step}  <=  ${sql.replace(/\s+/g, ' ').trim()}`);
      }
    }
    expect(planned).toBeGreaterThan(40);
    expect(scans).toEqual([]);
  }, 60_000);
});
