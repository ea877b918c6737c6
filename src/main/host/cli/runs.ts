/**
 * `deskhand runs list|show` (read from the store alone: the runtime is not built) and `runs approve|deny|answer`
 * (cli/agent.ts: they resume the run, so they open the whole runtime).
 */
import { parseArgs } from 'node:util';
import { forDisplay } from '../../../shared/untrusted-display';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { costOf, formatCost, runTokens } from '../../../shared/prices';
import { formatTotalCost } from '../../../shared/usage';
import { holdMessage } from '../../runtime/loop/usage-budget';
import { turnUsageOf } from '../app/usage-projection';
import { resolveDataDir } from '../assembly/data-dir';
import { openListingStore, withStore } from '../assembly/open-store';
import { EXIT, RUNS_OPTIONS, UsageError, print } from './flags';
import { type Records } from '../../runtime/records';

export type { RunsFlags } from './flags';

export async function runsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: RUNS_OPTIONS,
  });
  let answerValue: unknown;
  if (sub === 'answer') {
    if (values.value === undefined) throw new UsageError('runs answer needs --value JSON, e.g. --value \'{"approved": true}\' or --value \'{"answers": {"<question>": "<choice>"}}\'.');
    try {
      answerValue = JSON.parse(values.value);
    } catch (err) {
      throw new UsageError(`--value is not valid JSON (${errorMessage(err)}). Quote it for your shell: --value '{"paths": ["/tmp/a.csv"]}'.`);
    }
  }
  if (sub === 'approve' || sub === 'deny' || sub === 'answer') return (await import('./agent')).resumeCommand(sub, values, positionals, answerValue);
  if (sub === 'review') return reviewCommand(values['data-dir'], positionals, values.json === true);
  // Listing and showing read the store only: no runtime, no family, no MCP server.
  const opened = await openListingStore(resolveDataDir(values['data-dir']));
  const store = opened.records;
  try {
    switch (sub) {
      case 'list': {
        const runs = store.listRuns(50);
        // A descendant's request (a subagent parked with its parent's call) names its child and the run it parks.
        const pending = store.pendingApprovals().map((a) => ({ ...a, ...subagentOf(store, a.run_id) }));
        if (values.json) {
          print({ runs, approvals: pending, budgetHolds: store.usage.pendingHolds().map((h) => ({ ...h, message: holdMessage(h) })) });
        } else {
          if (runs.length === 0) process.stdout.write('No runs yet.\n');
          for (const r of runs) {
            const conv = store.getConversation(r.conversation_id);
            process.stdout.write(`${r.id}  ${r.status.padEnd(11)} ${new Date(r.created_at).toISOString()}  ${conv?.title ?? ''}\n`);
          }
          for (const h of store.usage.pendingHolds()) process.stdout.write(`  waiting: ${h.id}  budget  run ${h.run_id}  ${holdMessage(h)}\n`);
          for (const a of pending) {
            const flow = a.subagent?.workflow ? ` of workflow ${a.subagent.workflow.id}${a.subagent.workflow.phase ? ` (phase "${forDisplay(a.subagent.workflow.phase).text}")` : ''},` : '';
            const child = a.subagent ? `  subagent ${a.subagent.id} "${forDisplay(a.subagent.description).text}"${flow} of run ${a.subagent.parentRunId ?? '?'}` : '';
            process.stdout.write(`  waiting: ${a.id}  ${a.kind === 'approval' ? a.tool : `${a.kind} (${a.tool})`}  (${a.risk})  run ${a.run_id}${child}\n`);
          }
        }
        return EXIT.finished;
      }
      case 'show': {
        const id = positionals[0];
        if (!id) throw new UsageError('runs show needs a RUN_ID.');
        const run = store.getRun(id);
        if (!run) throw new DeskhandError('not_found', `No run ${id}. See \`deskhand runs list\`.`);
        const calls = store.toolCallsForRun(id).map((c) => ({ ...c, args: JSON.parse(c.args) as unknown, reasons: JSON.parse(c.reasons) as unknown }));
        const approvals = store.approvalsForRun(id);
        const turn = turnUsageOf(store, id);
        if (values.json) {
          print({ run, costUsd: costOf(run.model, runTokens(run)), usage: turn, toolCalls: calls, approvals });
        } else {
          const conv = store.getConversation(run.conversation_id);
          const out = (line: string) => process.stdout.write(`${line}\n`);
          out(`${run.id}  ${run.status}  ${run.provider}/${run.model}  policy ${run.policy}  steps ${run.step}  tokens ${run.input_tokens} in${run.cache_read_tokens || run.cache_write_tokens ? ` (cache: ${run.cache_read_tokens} read, ${run.cache_write_tokens} written)` : ''} / ${run.output_tokens} out  cost ${formatCost(costOf(run.model, runTokens(run))) ?? 'unknown (no price for this model)'}`);
          out(`conversation ${run.conversation_id}${conv ? `  "${conv.title}"  in ${conv.folder}` : ''}`);
          if (turn.calls > 0) {
            const parts = Object.entries(turn.byCause).map(([cause, t]) => `${cause} ${t.calls}`);
            out(`turn total (${turn.calls} model calls: ${parts.join(', ')}): ${turn.inputTokens} in / ${turn.outputTokens} out, cost ${formatTotalCost(turn)}`);
          }
          for (const h of store.usage.pendingHolds(id)) out(`waiting: ${h.id}  ${holdMessage(h)}`);
          if (run.error) out(`error: ${run.error}`);
          const byCall = new Map(approvals.map((a) => [a.tool_call_id, a]));
          for (const c of calls) {
            const a = byCall.get(c.id);
            const status = a?.status === 'denied' || c.decision === 'deny' ? 'denied' : c.status;
            out(`  [${c.step}.${c.position}] ${c.tool} ${status} ${c.risk ?? ''} ${c.decision ?? ''}`.trimEnd());
            out(`      args: ${JSON.stringify(c.args).slice(0, 400)}`);
            if (a) {
              out(`      ${a.kind === 'approval' ? 'approval' : a.kind} ${a.id}: ${a.status}${a.reason ? ` (${a.reason})` : ''}`);
              // The diff or preview the person was shown, also for denied calls.
              if (a.preview) for (const line of a.preview.split('\n').slice(0, 40)) out(`      | ${line}`);
            }
            if (c.output !== null) {
              const lines = forDisplay(c.output).text.split('\n');
              for (const line of lines.slice(0, 8)) out(`      > ${line.slice(0, 200)}`);
              if (lines.length > 8) out(`      > … ${lines.length - 8} more lines (--json has all of it)`);
            }
          }
          for (const a of approvals.filter((x) => !calls.some((c) => c.id === x.tool_call_id))) out(`  ${a.kind} ${a.id} ${a.tool} ${a.status}`);
        }
        return EXIT.finished;
      }
      default:
        throw new UsageError(`runs needs list, show, approve, deny, answer or review.`);
    }
  } finally {
    opened.close();
  }
}

/**
 * `deskhand runs review RUN_ID CALL_ID`: the person marks an untrusted tool result as reviewed (they read it and vouch
 * for it; taint-scope.ts), so it no longer taints the run's conversation from its next step on.
 */
async function reviewCommand(dataDir: string | undefined, positionals: string[], json: boolean): Promise<number> {
  const [runId, callId, extra] = positionals;
  if (!runId || !callId || extra !== undefined) throw new UsageError('runs review needs a RUN_ID and a CALL_ID: deskhand runs review RUN_ID CALL_ID (the call ids are in `deskhand runs show RUN_ID --json`, toolCalls[].call_id).');
  // Loaded here: `runs list` and `runs show` do not pay for the taint rule.
  const { markReviewed } = await import('../../runtime/decision/taint-scope');
  return withStore(dataDir, (store, records) => {
    const run = records.getRun(runId);
    if (!run) throw new DeskhandError('not_found', `No run ${runId}. See \`deskhand runs list\`.`);
    const mark = markReviewed(store, run.conversation_id, callId, 'cli');
    if (json) print(mark);
    else if (mark.marked) process.stdout.write(`Marked the result of ${callId} (${mark.tool}) as reviewed: it no longer counts as untrusted content in conversation ${run.conversation_id}.\n`);
    else process.stdout.write(`The result of ${callId} (${mark.tool}) was already marked as reviewed (${mark.reviewedBy}, ${new Date(mark.reviewedAt).toISOString()}).\n`);
    return EXIT.finished;
  });
}

/**
 * The subagent whose run asks (its id, type, description and parent run; a workflow's child: the workflow and the
 * phase it was in), for listing its requests.
 */
function subagentOf(store: Records, runId: string): { subagent?: { id: string; type: string; description: string; parentRunId: string | null; workflow?: { id: string; phase: string | null } } } {
  const run = store.getRun(runId);
  const row = run && store.subagents.byConversation(run.conversation_id);
  if (!row) return {};
  const flow = row.parent_run_id && row.parent_call_id?.includes('#') ? store.workflows.byChildCall(row.parent_run_id, row.parent_call_id) : undefined;
  return { subagent: { id: row.id, type: row.type, description: row.description, parentRunId: row.parent_run_id, ...(flow ? { workflow: { id: flow.id, phase: flow.phase } } : {}) } };
}
