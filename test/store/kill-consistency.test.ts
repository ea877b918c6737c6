/**
 * What a kill of the writer can show about commits that skip the fsync (docs/performance.md): each is atomic and they
 * stay in order — a SIGKILL at any point leaves every acknowledged commit, as a gap-free prefix, in a store that passes
 * its integrity check. It says nothing about power loss: a SIGKILL never loses what is in the page cache, so this test
 * passes with every fsync removed. The write barriers themselves are counted in fsync-tiers.test.ts.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tool-context';

describe('commits without an fsync, killed mid-stream', () => {
  it('are atomic and ordered: every acknowledged one is there after a SIGKILL, as a gap-free prefix, and the store is intact', async () => {
    for (const delayMs of [0, 40, 150]) {
      const dataDir = tempDir('deskhand-fsync-');
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../support/fsync-writer-main.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      let acknowledged = 0;
      await new Promise<void>((res, rej) => {
        child.stdout.on('data', (d: Buffer) => {
          for (const m of d.toString().matchAll(/wrote (\d+)/g)) acknowledged = Math.max(acknowledged, Number(m[1]));
          if (acknowledged >= 40) res();
        });
        child.on('exit', () => rej(new Error('the writer exited early')));
      });
      await new Promise((r) => setTimeout(r, delayMs));
      child.kill('SIGKILL');
      await new Promise((r) => child.on('close', r));

      const db = new Database(join(dataDir, 'deskhand.db'));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = db.prepare("SELECT content FROM messages WHERE conversation_id = 'conv_fsync' ORDER BY id").all() as { content: string }[];
      db.close();
      // Everything the writer was told had been committed is there, and nothing is missing in between.
      expect(rows.length).toBeGreaterThanOrEqual(acknowledged);
      expect(rows.map((r) => JSON.parse(r.content) as string)).toEqual(rows.map((_, i) => `message ${i + 1}`));
    }
  }, 60_000);
});
