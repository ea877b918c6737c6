/**
 * The computer-use kill switch across processes: every Stop (the banner, the tray, the shortcut, the contract's
 * stopComputerUse) adds a row here, in the one store every Deskhand process on the data folder shares. Each process's
 * computer-use service reads the newest stop before every action and every typed chunk, and stops every session of
 * its own that began before it.
 */
import { defineStoreModule, type Sql } from '../module';

export const computerStopsModule = defineStoreModule({
  name: 'computer-stops',
  migrations: [
    {
      description: 'computer-use stops',
      sql: `CREATE TABLE computer_stops (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, reason TEXT NOT NULL, pid INTEGER NOT NULL);`,
    },
  ],
  queries: (sql: Sql) => ({
    /** Records a stop now; returns its time (ms). */
    raise(reason: string): number {
      const at = Date.now();
      sql.run('INSERT INTO computer_stops (at, reason, pid) VALUES (?, ?, ?)', at, reason.slice(0, 200), process.pid);
      return at;
    },
    /** The newest stop's time (ms), or null when computer use was never stopped on this data folder. */
    latest: (): number | null => sql.one<{ at: number | null }>('SELECT MAX(at) AS at FROM computer_stops')?.at ?? null,
  }),
});
