/**
 * `deskhand workflows list [--conversation ID] | show ID | cancel ID [--reason TEXT]`: workflow runs with their
 * phase, progress and spend; one run with each phase's output and its event log; cancelling one from any process
 * (the process running it sees the row change and stops the script and every child).
 */
import { describeRun } from '../../services/workflows/workflow-service';
import { out, parseSubcommand, usage, withRecords } from './common';
import { WORKFLOW_TERMINAL, type WorkflowRow } from '../../runtime/records';

function line(r: WorkflowRow): string {
  const spend = `${r.agents} agents ${r.input_tokens + r.output_tokens} tok ~$${r.cost_usd.toFixed(4)}`;
  const where = r.status === 'running' ? `  phase ${r.phase ?? '-'}${r.progress ? ` (${r.progress.slice(0, 60)})` : ''}` : '';
  return `${r.id}  ${r.status.padEnd(11)}  ${(r.name ?? 'inline').padEnd(13)}  ${spend}  conversation ${r.conversation_id}${where}`;
}

export async function workflowsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { conversation: { type: 'string' }, reason: { type: 'string' } });
  return withRecords(values['data-dir'], (store) => {
    const rows = store.workflows;
    switch (sub) {
      case 'list': {
        const list = values.conversation ? rows.forConversation(values.conversation) : rows.list(100);
        if (values.json) out(JSON.stringify(list));
        else out(list.length ? list.map(line).join('\n') : 'No workflows.');
        return 0;
      }
      case 'show': {
        const row = positionals[0] ? rows.get(positionals[0]) : undefined;
        if (!row) throw usage('workflows show needs a workflow id (deskhand workflows list shows them).');
        const events = rows.events(row.id);
        if (values.json) out(JSON.stringify({ ...row, events }));
        else {
          const log = events.map((e) => `${new Date(e.at).toISOString().slice(11, 19)}  ${e.kind.padEnd(12)}  ${e.text.split('\n')[0]!.slice(0, 160)}`);
          out(`${line(row)}\ntask ${row.task_id ?? '-'}  args ${row.args || '(none)'}\n${describeRun(row)}\n--- events ---\n${log.join('\n') || '(none)'}`);
        }
        return 0;
      }
      case 'cancel': {
        const row = positionals[0] ? rows.get(positionals[0]) : undefined;
        if (!row) throw usage('workflows cancel needs a workflow id (deskhand workflows list shows them).');
        if ((WORKFLOW_TERMINAL as readonly string[]).includes(row.status)) {
          out(`${row.id} already ${row.status}.`);
          return 0;
        }
        const reason = values.reason ?? 'cancelled from the command line';
        store.transaction(() => {
          rows.finish(row.id, 'cancelled', { error: reason });
          rows.event(row.id, 'end', `cancelled: ${reason}`);
          if (row.task_id) {
            store.tasks.updateTask(row.task_id, { notify: 0 });
            store.tasks.finishTask(row.task_id, 'cancelled', { summary: reason, notified_at: Date.now() });
          }
        });
        out(`${row.id} cancelled; the process running it stops its script and every agent it started.`);
        return 0;
      }
      default:
        throw usage('workflows needs list, show or cancel.');
    }
  });
}
