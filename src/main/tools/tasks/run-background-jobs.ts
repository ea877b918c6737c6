/**
 * run_background_jobs (approval pair `execute_run_background_jobs`): several independent commands in a detached
 * worker, with a concurrency cap and per-job retries with exponential backoff. Each command is classified on its
 * own and the riskiest decides; the person sees every job before approving. The worker ends with Deskhand (its jobs
 * are stopped); the batch is kept and resumes when Deskhand starts again.
 */
import { z } from 'zod';
import { maxRisk } from '../../../shared/tools';
import { ToolError } from '../../../shared/errors';
import { DEFAULT_SANDBOX_MODE } from '../../../shared/sandbox';
import { defineTool, type Classification } from '../../runtime/tool';
import { formatDuration, type TaskService } from '../../services/tasks';
import type { CommandKnowledge } from './command-knowledge';

const DEFAULT_JOB_TIMEOUT_MS = 15 * 60_000;
const MAX_JOB_TIMEOUT_MS = 60 * 60_000;

const job = z.object({
  command: z.string().min(1, { error: 'a job command is empty' }).describe('The bash command of this job.'),
  cwd: z.string().optional().describe('Working directory of this job. Default: the current working directory.'),
  retries: z.number().int().min(0).max(5).optional().describe('How many times to run the job again after it fails (default 0, at most 5), waiting longer each time.'),
  timeout_ms: z.number().int().positive().max(MAX_JOB_TIMEOUT_MS).optional().describe(`Stop one attempt after this many milliseconds (default ${DEFAULT_JOB_TIMEOUT_MS}, at most ${MAX_JOB_TIMEOUT_MS}).`),
});

const params = () => z.object({
  jobs: z.array(job).min(1, { error: 'jobs is empty; pass at least one {command}' }).max(50).describe('The commands to run, each independent of the others (1 to 50).'),
  concurrency: z.number().int().min(1).max(8).optional().describe('How many jobs run at once (default 2, at most 8).'),
  backoff_ms: z.number().int().min(100).max(60_000).optional().describe('Wait before the first retry of a failed job, doubled for each further retry (default 1000).'),
  description: z.string().max(200).optional().describe('A few words naming the batch in lists (e.g. "test all packages").'),
  network: z.boolean().optional().describe('Let the jobs use the network inside the sandbox. Always asks the person.'),
  outside_sandbox: z.boolean().optional().describe('Run the jobs without the OS sandbox. Always asks the person.'),
});

export const createRunBackgroundJobs = (tasks: TaskService, commands: CommandKnowledge, dataDir: string) =>
  defineTool({
    name: 'run_background_jobs',
    facts: { writes: true, loadsWith: 'jobs' },
    description:
      'Run several independent shell commands in the background, in a worker whose batch is kept when Deskhand ' +
      'stops (its jobs are stopped then) and resumes when Deskhand starts again: at most `concurrency` at once, ' +
      'each failed job retried up to `retries` times with exponential ' +
      'backoff. Returns a batch id at once. When every job has ended you get a new message with each job\'s status, ' +
      'exit code and output. Each command is classified on its own (the riskiest decides) and runs in the OS sandbox ' +
      'like execute_command. list_background_jobs shows progress, task_output {"id": "<batch>.<n>"} a job\'s whole ' +
      'output, cancel_background_jobs stops the batch.',
    params,
    risk: 'unknown',
    effects(args, ctx) {
      let risk: Classification['risk'] = 'read-only';
      const reasons: string[] = [];
      let alwaysAsk: string | null = null;
      let deny: string | null = null;
      args.jobs.forEach((j, i) => {
        let cwd = ctx.cwd;
        try {
          cwd = commands.resolveCwd(j.cwd, ctx.cwd);
        } catch {
          risk = 'high-risk';
          reasons.push(`job ${i + 1}: the cwd could not be resolved`);
          alwaysAsk ??= `job ${i + 1}: its working folder cannot be resolved`;
          return;
        }
        const c = commands.classify(j.command, { ...ctx, cwd });
        risk = maxRisk(risk, c.risk);
        for (const r of c.reasons) reasons.push(`job ${i + 1} (${c.risk}): ${r}`);
        if (c.alwaysAsk) alwaysAsk ??= `job ${i + 1}: ${c.alwaysAsk}`;
        if (c.deny) deny ??= `job ${i + 1}: ${c.deny}`;
        // A job's working folder is contained like any path: outside the workspace roots it asks.
        const where = commands.containCwd(cwd, ctx);
        if (where.ask) {
          reasons.push(`job ${i + 1}: working folder: ${where.summary}`);
          alwaysAsk ??= `job ${i + 1}: ${where.ask}`;
        }
      });
      const assessment = commands.withSandbox({ risk, reasons, rulePattern: null, alwaysAsk, deny }, args, ctx);
      return { assessment, processes: true, network: !!assessment.network };
    },
    disclosure: 'private',
    presentation: { title: 'Run commands in the background', icon: 'task', result: 'terminal', summary: (args) => `${args.jobs.length} job${args.jobs.length === 1 ? '' : 's'}` },
    pair: {
      executeName: 'execute_run_background_jobs',
      async propose(args, ctx) {
        const n = args.jobs.length;
        const retries = Math.max(...args.jobs.map((j) => j.retries ?? 0));
        const where = args.outside_sandbox || ctx.sandbox === 'off' ? ', outside the sandbox' : args.network ? ', with network access' : '';
        const description = `Run ${n} command${n === 1 ? '' : 's'} in the background (at most ${args.concurrency ?? 2} at once${retries ? `, failed ones retried up to ${retries} times` : ''}${where})`;
        const preview = args.jobs
          .map((j, i) => {
            const cwd = commands.resolveCwd(j.cwd, ctx.state.cwd);
            return `[${i + 1}]${cwd === ctx.state.cwd ? '' : ` (in ${commands.visible(cwd)})`}${j.retries ? ` (retries ${j.retries})` : ''}\n${commands.visible(j.command)}`;
          })
          .join('\n');
        return { description, preview };
      },
    },
    async execute(args, ctx) {
      const jobs = args.jobs.map((j) => {
        const cwd = commands.resolveCwd(j.cwd, ctx.state.cwd);
        commands.checkCwd(cwd);
        return { command: j.command, cwd, retries: j.retries ?? 0, timeoutMs: j.timeout_ms ?? DEFAULT_JOB_TIMEOUT_MS };
      });
      if (ctx.signal.aborted) throw new ToolError('The run was stopped before the batch started; nothing runs.', 'aborted');
      const concurrency = args.concurrency ?? 2;
      const batch = tasks.startBatch({
        conversationId: ctx.conversationId,
        runId: ctx.runId,
        callId: ctx.callId,
        title: args.description?.trim() || `${jobs.length} job${jobs.length === 1 ? '' : 's'}: ${jobs.map((j) => j.command).join('; ')}`.slice(0, 200),
        jobs,
        concurrency,
        backoffMs: args.backoff_ms ?? 1_000,
        sandbox: {
          mode: ctx.sandbox ?? DEFAULT_SANDBOX_MODE,
          network: !!args.network,
          outside: !!args.outside_sandbox,
          roots: ctx.state.workspaceRoots,
          dataDir,
        },
      });
      return {
        output: [
          `Started job batch ${batch.id}: ${jobs.length} job${jobs.length === 1 ? '' : 's'}, at most ${concurrency} at once${args.backoff_ms ? `, retries after ${formatDuration(args.backoff_ms)} and doubling` : ''}.`,
          `When every job has ended you get a new message with each job's status, exit code and output. Meanwhile list_background_jobs shows progress, task_output {"id": "${batch.id}.1"} shows job 1's output, and cancel_background_jobs {"ids": ["${batch.id}"]} stops the batch.`,
        ].join('\n'),
      };
    },
  });
