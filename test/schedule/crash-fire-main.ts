/**
 * A `deskhand fire` that dies between claim and run: the real fire code claims the slot and advances the schedule,
 * then the process is killed (SIGKILL) just as it would start the woken run.
 *   node --import tsx test/schedule/crash-fire-main.ts DATA_DIR SCHEDULE_ID
 */
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { scheduleFire } from '../../src/main/host/background/schedule-fire';

const [dataDir, id] = process.argv.slice(2);
const runtime = createAppRuntime({ dataDir: dataDir!, vault: null });
// The OS job runs at the due time.
runtime.schedules.rows.update(id!, { next_at: Date.now() });
await scheduleFire(runtime, {
  notifier: { notify: async () => ({ via: 'none', id: null }), onAction: () => () => undefined, close: async () => undefined },
  provider: () => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('unreachable');
  },
  via: 'os',
}).fire(id!);
