/**
 * The change ledger in every runtime: each step that may change files is scanned before and after, and a background
 * task that ends is scanned for then, its changes belonging to the run that started it (services/ledger,
 * docs/rewind.md). `DESKHAND_LEDGER=off` turns it off for a process (benches that measure something else); then, and
 * with `DESKHAND_CONFINED=ask`, the confined inspector lets nothing run unasked (nothing says the roots are recorded).
 */
import { ledgerRecords, type ChangeLedger } from '../../services/ledger';
import type { Runtime } from '../../runtime/runtime';
import type { BackgroundTasks } from '../../services/tasks/background-tasks';
import { PersistentConversationState } from '../../runtime/context/conversation-state';

const open = new Set<ChangeLedger>();

/** `makeLedger`: the ledger on the store (runtime/store-services.ts), made only when the ledger is on. */
export function wireLedger(runtime: Pick<Runtime, 'watchStepFiles' | 'setRecordedRoots' | 'records'>, makeLedger: () => ChangeLedger, dataDir: string, tasks: Pick<BackgroundTasks, 'onEvent'>, env: NodeJS.ProcessEnv = process.env): ChangeLedger | null {
  if (env.DESKHAND_LEDGER === 'off') return null;
  const ledger = makeLedger();
  const records = runtime.records;
  runtime.watchStepFiles((scope) => ledger.beginStep(scope));
  // What the confined inspector asks before a step: are these roots recorded (so their changes can be taken back)?
  // DESKHAND_CONFINED=ask: confined calls ask like any other (suites written before issue 46 use them as their asks).
  if (env.DESKHAND_CONFINED !== 'ask') runtime.setRecordedRoots((roots, writes) => ledgerRecords(roots, dataDir, writes));
  tasks.onEvent((e) => {
    if (e.type !== 'task.changed' || e.task.status === 'running' || e.task.background !== 1 || !e.task.run_id) return;
    const conv = records.isOpen ? records.getConversation(e.task.conversation_id) : undefined;
    if (!conv) return;
    const roots = new PersistentConversationState(conv.folder, conv.state).workspaceRoots;
    const attribution = { conversation_id: conv.id, run_id: e.task.run_id, source: 'between', note: JSON.stringify({ task: e.task.id }) };
    void ledger.observe(roots, () => attribution, e.task.run_id).catch(() => undefined);
  });
  // Its folder watchers never keep the process alive; its tick folder in the data folder goes with the process.
  if (open.size === 0) process.once('exit', () => open.forEach((l) => l.close()));
  open.add(ledger);
  return ledger;
}
