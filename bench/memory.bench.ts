/**
 * memory_recall_ms: recall for one turn (what the memory family adds to the system prompt: an FTS5 search of the
 * conversation's user, workspace and project scopes, bm25 order, formatted and wrapped as untrusted data) over 10,000
 * records spread across 50 scopes, each at its 200-record limit. Baseline, measured in the same run with paired
 * rounds: the raw FTS5 MATCH of the same query over the whole index (no scope or status filter, no formatting).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../src/main/services/store/store';
import { StoreMemoryService } from '../src/main/services/memory/memory-service';
import { ftsQuery } from '../src/main/services/memory';
import { memoryModule } from '../src/main/services/store/modules/memory';
import { recallBlock } from '../src/main/tools/memory';
import { figure, paired, ratio, type BenchResult } from './lib';

const RECORDS = 10_000;
const PER_SCOPE = 200;
const WORDS = 'deploy staging release database migration schema tests lint format build cache docker python rust typescript editor vim emacs tabs spaces branch review commit invoice report budget meeting calendar printer backup laptop server logs'.split(' ');

export default async function memoryBench(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'deskhand-bench-memory-'));
  const store = new Store(dir);
  try {
    const memory = new StoreMemoryService(store);
    const scopes = RECORDS / PER_SCOPE; // 50: half workspaces, half projects (folders that do not exist: key = folder)
    store.transaction(() => {
      for (let s = 0; s < scopes; s++) {
        const folder = `/bench/folder-${Math.floor(s / 2)}`;
        const scope = s % 2 === 0 ? 'workspace' : 'project';
        for (let i = 0; i < PER_SCOPE; i++) {
          const w = (k: number) => WORDS[(s * 7 + i * 13 + k * 5) % WORDS.length]!;
          memory.add(
            { scope, topic: `${w(0)} ${w(1)}`, body: `Record ${s}-${i}: the person prefers ${w(2)} with ${w(3)} and always checks ${w(4)} before ${w(5)}.`, quote: `${w(2)} with ${w(3)}` },
            { folder, actor: 'bench' },
          );
        }
      }
    });
    const total = memory.list().length;
    if (total !== RECORDS) throw new Error(`seeded ${total} records, expected ${RECORDS}`);
    const raw = store.module(memoryModule);
    const queries = ['How do we deploy to staging after the database migration?', 'which editor, vim or emacs, and tabs or spaces?', 'where are the server logs and the backup?'];
    // Each side counts its own calls, so round i of both sides uses the same query (paired() swaps their order).
    let qa = 0;
    let qb = 0;
    let hits = 0;
    const rounds = paired(
      60,
      10,
      async () => {
        const text = queries[qa % queries.length]!;
        const block = recallBlock(memory, `/bench/folder-${qa++ % 25}`, text);
        if (block) hits++;
      },
      async () => {
        const text = queries[qb++ % queries.length]!;
        raw.rawMatch(ftsQuery(text)!, 8);
      },
    );
    const { a, b } = await rounds;
    if (hits === 0) throw new Error('recall found nothing: the bench would measure an empty search');
    return {
      memory_recall_ms: figure(a, { unit: 'ms', baseline: 'memory_fts5_raw_match_ms' }),
      memory_fts5_raw_match_ms: figure(b, { unit: 'ms' }),
      memory_recall_vs_raw_fts5: ratio(a, b, { baseline: 'raw FTS5 MATCH of the same query over all 10,000 records' }),
      memory_records: RECORDS,
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
