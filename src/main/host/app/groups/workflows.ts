/** The workflows panel's methods (list, show and cancel runs) and the tower's mission board. */
import type { HandlerGroup } from '../handler-groups';
import type { WORKFLOW_METHOD_NAMES, WorkflowView } from '../../../../shared/contract/workflows';
import { DeskhandError } from '../../../../shared/errors';
import { type WorkflowPhase, type WorkflowRow } from '../../../runtime/records';

export function workflowView(r: WorkflowRow): WorkflowView {
  const phases = JSON.parse(r.phases) as WorkflowPhase[];
  return {
    id: r.id,
    conversationId: r.conversation_id,
    taskId: r.task_id,
    name: r.name,
    args: r.args,
    status: r.status,
    phase: r.phase,
    phases: phases.map((p) => ({ name: p.name, status: p.status, output: p.output, startedAt: p.started_at, endedAt: p.ended_at })),
    progress: r.progress,
    agents: r.agents,
    tokens: r.input_tokens + r.output_tokens,
    costUSD: r.cost_usd,
    limits: JSON.parse(r.limits) as WorkflowView['limits'],
    result: r.result,
    error: r.error,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  };
}

/** The workflows panel's and mission board's methods (a handler group, handler-groups.ts). */
export const workflowGroup: HandlerGroup<(typeof WORKFLOW_METHOD_NAMES)[number]> = ({ runtime }) => {
  return {
    async listWorkflows(p) {
      return { workflows: runtime.workflows.list(p.conversationId).map(workflowView) };
    },
    async getWorkflow(p) {
      const row = runtime.workflows.get(p.id);
      if (!row) throw new DeskhandError('not_found', `No workflow ${p.id}.`);
      return { workflow: workflowView(row), script: row.script, events: runtime.workflows.events(row.id).map((e) => ({ at: e.at, kind: e.kind, text: e.text })) };
    },
    async getTowerBoard(p) {
      const tower = runtime.tower;
      const session = tower.rows.activeFor(p.conversationId) ?? tower.rows.sessions(200).find((x) => x.conversation_id === p.conversationId);
      if (!session) return { board: null };
      const subagents = runtime.subagents;
      return {
        board: {
          id: session.id,
          repo: session.repo,
          baseBranch: session.base_branch,
          integrationBranch: session.integration_branch,
          objective: session.objective,
          status: session.status,
          planStatus: session.plan_status,
          missions: tower.rows.missions(session.id).map((m) => {
            const r = tower.rows.latestReview(session.id, m.id);
            return {
              id: m.id,
              title: m.title,
              status: m.status,
              scope: JSON.parse(m.scope) as string[],
              tasks: JSON.parse(m.tasks) as { text: string; done: boolean }[],
              depends: JSON.parse(m.depends) as string[],
              branch: m.branch,
              review: r ? { reviewer: r.reviewer, verdict: r.verdict, commit: r.commit_sha.slice(0, 10), body: r.body } : null,
            };
          }),
          roster: tower.rows.agents(session.id).map((a) => ({ id: a.id, role: a.role, mission: a.mission_id, status: subagents.get(a.subagent_id)?.status ?? 'unknown' })),
          inbox: tower.rows.messages(session.id, 50).map((m) => ({ at: m.at, from: m.sender, to: m.recipient, body: m.body })),
          findings: tower.rows.findings(session.id).map((f) => ({ at: f.at, from: f.sender, kind: f.kind, title: f.title })),
          activity: tower.rows.activity(session.id, 50).map((a) => ({ at: a.at, text: a.text })),
        },
      };
    },
    async cancelWorkflow(p) {
      return { workflow: workflowView(await runtime.workflows.cancel(p.id, 'cancelled from the workflows panel')) };
    },
  };
};
