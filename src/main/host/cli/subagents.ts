/**
 * `deskhand subagents list [--conversation ID] | show ID | steer ID MESSAGE | wait ID | cancel ID`: the children
 * conversations started, their status, spend and transcripts; steering, waiting for and cancelling one from any
 * process (the process that runs it reads the steering before the child's next model call, and notices a cancel).
 */
import { DeskhandError } from '../../../shared/errors';
import { isSameProcess } from '../../services/processes/proc-info';
import { out, parseSubcommand, usage, withRecords } from './common';
import { type Records, SUBAGENT_TERMINAL, type SubagentRow } from '../../runtime/records';

function line(r: SubagentRow): string {
  const spend = `${r.input_tokens + r.output_tokens} tok ~$${r.cost_usd.toFixed(4)}`;
  return `${r.id}  ${r.status.padEnd(9)}  ${r.type.padEnd(7)}  ${spend}  parent ${r.parent_conversation_id}  ${r.description}`;
}

function transcript(store: Records, conversationId: string): string {
  return store
    .listMessages(conversationId)
    .map((m) => {
      const content = JSON.parse(m.content) as unknown;
      const text =
        typeof content === 'string'
          ? content
          : (content as { type?: string; text?: string; toolName?: string; input?: unknown; output?: { value?: string } }[])
              .map((p) => (p.type === 'text' ? p.text : p.type === 'tool-call' ? `→ ${p.toolName} ${JSON.stringify(p.input)}` : p.type === 'tool-result' ? `← ${p.toolName}: ${String(p.output?.value ?? '').slice(0, 500)}` : ''))
              .join('\n');
      return `[${m.role}] ${text}`;
    })
    .join('\n');
}

/** Cancels a child from a process that does not run it: its row and task say so; the process running it stops its run. */
export function cancelSubagentRow(store: Records, row: SubagentRow, reason: string): void {
  store.transaction(() => {
    store.subagents.finish(row.id, 'cancelled', { error: reason });
    if (row.task_id) {
      store.tasks.updateTask(row.task_id, { notify: 0 });
      store.tasks.finishTask(row.task_id, 'cancelled', { summary: reason, notified_at: Date.now() });
    }
  });
}

export async function subagentsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { conversation: { type: 'string' }, reason: { type: 'string' }, timeout: { type: 'string' } });
  return withRecords(values['data-dir'], async (store) => {
    const rows = store.subagents;
    switch (sub) {
      case 'list': {
        const list = values.conversation ? rows.forParent(values.conversation) : rows.list(200);
        if (values.json) out(JSON.stringify(list));
        else out(list.length ? list.map(line).join('\n') : 'No subagents.');
        return 0;
      }
      case 'show': {
        const row = positionals[0] ? rows.get(positionals[0]) : undefined;
        if (!row) throw usage(`subagents show needs a subagent id (deskhand subagents list shows them).`);
        if (values.json) out(JSON.stringify({ ...row, transcript: store.listMessages(row.conversation_id) }));
        else out(`${line(row)}\nconversation ${row.conversation_id}${row.task_id ? `  task ${row.task_id}` : ''}  policy ${row.policy}\n${row.result ?? row.error ?? ''}\n--- transcript ---\n${transcript(store, row.conversation_id)}`);
        return 0;
      }
      case 'steer': {
        const row = positionals[0] ? rows.get(positionals[0]) : undefined;
        const message = positionals.slice(1).join(' ').trim();
        if (!row || !message) throw usage('subagents steer needs a subagent id and a message: deskhand subagents steer sub_0123abcd "Focus on the tests".');
        if ((SUBAGENT_TERMINAL as readonly string[]).includes(row.status)) throw new DeskhandError('conflict', `${row.id} already ${row.status}; nothing reads a message now.`);
        rows.steer(row.id, message, 'person');
        out(`Sent to ${row.id}: it reads the message before its next model call.`);
        return 0;
      }
      case 'wait': {
        const id = positionals[0];
        if (!id || !rows.get(id)) throw usage('subagents wait needs a subagent id (deskhand subagents list shows them).');
        const timeoutS = values.timeout === undefined ? 600 : Number(values.timeout);
        if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw usage('--timeout is a number of seconds, e.g. --timeout 60.');
        const until = Date.now() + timeoutS * 1000;
        for (;;) {
          const row = rows.get(id)!;
          const ended = (SUBAGENT_TERMINAL as readonly string[]).includes(row.status);
          // A child whose process died is not waited for (the next Deskhand start records it as interrupted).
          const orphan = !ended && row.owner_pid !== null && !isSameProcess(row.owner_pid, row.owner_start);
          if (ended || orphan || Date.now() >= until) {
            if (values.json) out(JSON.stringify({ ...row, ownerGone: orphan }));
            else out(`${line(row)}${orphan ? '  (the process running it is gone)' : ended ? '' : '  (still going; the wait timed out)'}\n${row.result ?? row.error ?? ''}`);
            return row.status === 'finished' ? 0 : 1;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      case 'cancel': {
        const row = positionals[0] ? rows.get(positionals[0]) : undefined;
        if (!row) throw usage(`subagents cancel needs a subagent id (deskhand subagents list shows them).`);
        if ((SUBAGENT_TERMINAL as readonly string[]).includes(row.status)) {
          out(`${row.id} already ${row.status}.`);
          return 0;
        }
        cancelSubagentRow(store, row, values.reason ?? 'cancelled from the command line');
        out(`${row.id} cancelled; the process running it stops its run.`);
        return 0;
      }
      default:
        throw usage('subagents needs list, show, steer, wait or cancel.');
    }
  });
}
