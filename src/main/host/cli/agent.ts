/**
 * The commands that drive the agent: `run`, `runs approve|deny|answer` (resuming a run), `secrets` (saving one answers
 * the runs waiting for it). They open the whole runtime (open-runtime.ts: every family, the providers); the CLI entry
 * loads this module only for them.
 */
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeAlways } from '../../../shared/always-allow';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { ProviderConfig } from '../../services/providers/config';
import type { RunOutcome, RunOptions } from '../../runtime/runtime';
import type { AppRuntime as Runtime } from '../assembly/open-runtime';
import { openRuntime, resolveDataDir } from '../assembly/open-runtime';
import { TaskWakes } from '../background/task-wakes';
import { renderEvent } from './render';
import { assertSecretName } from '../../services/vault/vault';
import { PromptQueue, readHidden } from './prompts';
import { GRANT_LIFETIMES, GRANT_SCOPES, isGrantLifetime, isGrantScope, type GrantLifetime, type GrantScope } from '../../../shared/rules';
import { EXIT, PROVIDER_OPTIONS, UsageError, enableFlag, parsePolicy, parseSandbox, print, providerFromFlags, type RunsFlags } from './flags';
import { type TaskRow } from '../../runtime/records';

export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...PROVIDER_OPTIONS,
      policy: { type: 'string' },
      cwd: { type: 'string' },
      conversation: { type: 'string' },
      'max-steps': { type: 'string' },
      sandbox: { type: 'string' },
      profile: { type: 'string' },
      enable: { type: 'string' },
      'fallback-model': { type: 'string' },
      'compact-at': { type: 'string' },
    },
  });
  const prompt = positionals.join(' ').trim();
  if (!prompt) throw new UsageError('run needs a PROMPT.');
  const enable = enableFlag(values.enable);
  const policy = parsePolicy(values.policy);
  const cwd = resolve(values.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${cwd} is not a folder.`);
  const sandbox = parseSandbox(values.sandbox);
  const maxSteps = values['max-steps'] === undefined ? undefined : Number(values['max-steps']);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1)) throw new UsageError('--max-steps must be a positive integer.');
  const compactAt = values['compact-at'] === undefined ? undefined : Number(values['compact-at'].replace(/%$/, ''));
  if (compactAt !== undefined && (!Number.isInteger(compactAt) || compactAt < 10 || compactAt > 95)) throw new UsageError('--compact-at must be a whole percent of the context window from 10 to 95 (e.g. 60).');
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), maxSteps, ...(compactAt !== undefined ? { compactAt: compactAt / 100 } : {}) });
  try {
    // An agent profile gives defaults (model, policy, sandbox) that flags override, and narrows the tools.
    const profile = values.profile === undefined ? null : runtime.profiles.get(values.profile);
    if (values.profile !== undefined && !profile) throw new UsageError(`No agent profile "${values.profile}". See deskhand profiles list.`);
    const provider = providerFromFlags({ ...values, provider: values.provider ?? profile?.provider, model: values.model ?? profile?.model });
    const runSandbox = sandbox ?? profile?.sandbox;
    let conversationId = values.conversation;
    if (conversationId) {
      if (!runtime.records.getConversation(conversationId)) throw new UsageError(`No conversation ${conversationId}.`);
      if (runSandbox) runtime.records.updateConversation(conversationId, { sandbox: runSandbox });
    } else {
      conversationId = runtime.createConversation({ folder: cwd, policy: policy ?? profile?.policy ?? 'read-only', ...(runSandbox ? { sandbox: runSandbox } : {}) }).id;
    }
    if (profile) runtime.profiles.assign(conversationId, profile.name);
    if (enable.length) runtime.setFamilies(conversationId, enable, true);
    // MCP servers connect (or fail, recorded in their health) before the first step; none stops the run.
    await runtime.startMcp(cwd);
    const options = runOptions(runtime, provider, !!values.json);
    const outcome = await withInterrupt(options, async (opts) => {
      const first = await runtime.sendMessage(conversationId!, prompt, { ...opts, ...(policy ? { policy } : {}) });
      return awaitBackground(runtime, conversationId!, values, opts, first);
    });
    return exitFor(outcome);
  } finally {
    await closeRuntime(runtime);
  }
}

/**
 * Background tasks outlive the turn that started them, but not Deskhand: the CLI waits for its conversation's tasks,
 * and each result continues the conversation in a new turn (keys from the environment, like the run). Ctrl-C stops
 * them. Stops waiting when a turn does not finish (parked, failed, stopped): a result could not be delivered then.
 */
async function awaitBackground(
  runtime: Runtime,
  conversationId: string,
  flags: { provider?: string | undefined; 'base-url'?: string | undefined; model?: string | undefined; json?: boolean | undefined },
  options: RunOptions,
  first: RunOutcome,
): Promise<RunOutcome> {
  let last = first;
  const running = () => runtime.tasks.rows.listTasks(conversationId, { activeOnly: true, limit: 100 });
  if (last.status !== 'finished' || (running().length === 0 && runtime.tasks.rows.tasksToNotify().every((t) => t.conversation_id !== conversationId))) return last;
  const wakes = new TaskWakes({
    runtime,
    accepts: (id) => id === conversationId,
    provider: (run) => providerFromFlags(flags, run),
    run: (conv, message, provider, signal) =>
      runtime.wake(conv, message, { ...options, provider, signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal, untrusted: true }),
    onOutcome: (outcome) => {
      last = outcome;
    },
    onError: (err) => process.stderr.write(`deskhand: ${errorMessage(err)}\n`),
    pollMs: 500,
  }).start();
  let announced = '';
  try {
    while (!options.signal?.aborted && last.status === 'finished') {
      const tasks = running();
      if (tasks.length === 0 && !wakes.busy(conversationId)) break;
      // Every task left is a subagent parked on a person: this process parks too (exit 3) with their requests.
      const parked = wakes.busy(conversationId) ? [] : parkedOn(runtime, tasks);
      if (parked.length) {
        last = { ...last, status: 'parked', approvalIds: parked };
        options.onEvent?.({ type: 'run.parked', runId: last.runId, conversationId, approvalIds: parked });
        break;
      }
      const ids = tasks.map((t) => t.id).join(', ');
      if (tasks.length && ids !== announced && !flags.json) process.stderr.write(`Waiting for background task${tasks.length === 1 ? '' : 's'} ${ids} (Ctrl-C stops ${tasks.length === 1 ? 'it' : 'them'}).\n`);
      announced = ids;
      await new Promise<void>((resolveWait) => {
        const t = setTimeout(resolveWait, 250);
        options.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          resolveWait();
        }, { once: true });
      });
    }
    await wakes.idle();
  } finally {
    await wakes.stop();
  }
  return last;
}

/**
 * When every task left waits for a person (a background subagent parked, a workflow parked on its children), the
 * requests they wait for; else none (something can still end while the CLI waits).
 */
function parkedOn(runtime: Runtime, tasks: readonly TaskRow[]): string[] {
  const requests: string[] = [];
  for (const task of tasks) {
    const waiting = task.kind === 'workflow' ? runtime.workflows.waitingFor(task.id) : runtime.subagents.parkedTasks([task]);
    if (waiting.length === 0) return [];
    requests.push(...waiting);
  }
  return [...new Set(requests)];
}

/**
 * `runs approve|deny|answer`: records the decision and resumes the run here (its MCP servers connected first), then
 * waits for the background tasks it started, like `run`.
 */
export async function resumeCommand(sub: 'approve' | 'deny' | 'answer', values: RunsFlags, positionals: string[], answerValue: unknown): Promise<number> {
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), mcpStart: 'on-demand' });
  try {
    const store = runtime.records;
    const id = positionals[0];
    if (!id) throw new UsageError(`runs ${sub} needs a REQUEST_ID (see \`deskhand runs list\`).`);
    if (id.startsWith('hold_')) return await answerHoldCommand(runtime, id, sub, values, answerValue);
    const approval = store.getApproval(id);
    if (!approval) throw new DeskhandError('not_found', `No request ${id}. See \`deskhand runs list\`.`);
    const run = store.getRun(approval.run_id)!;
    const provider = providerFromFlags(values, run);
    const options = runOptions(runtime, provider, !!values.json);
    if (values.scope !== undefined && !(sub === 'approve' && values.always)) throw new UsageError('--scope goes with runs approve --always.');
    if (values.for !== undefined && !(sub === 'approve' && values.always)) throw new UsageError('--for goes with runs approve --always.');
    if (values.scope !== undefined && !isGrantScope(values.scope)) throw new UsageError(`--scope must be one of ${GRANT_SCOPES.join(', ')} (got "${values.scope}").`);
    if (values.for !== undefined && !isGrantLifetime(values.for)) throw new UsageError(`--for must be one of ${GRANT_LIFETIMES.join(', ')} (got "${values.for}").`);
    const scope: GrantScope = isGrantScope(values.scope) ? values.scope : 'conversation';
    const lifetime: GrantLifetime = isGrantLifetime(values.for) ? values.for : 'until-revoked';
    // The resumed run may call MCP tools: their servers connect (or fail) first, the trusted project servers of
    // the conversation's folder included (as `deskhand run` starts them).
    await runtime.startMcp(store.getConversation(run.conversation_id)?.folder ?? undefined);
    if (sub === 'approve' && values.always) {
      // Exactly what "always" saves, before it is saved (a rule, or a workspace root of this conversation).
      const conv = store.getConversation(run.conversation_id);
      if (approval.always_pattern) process.stderr.write(`Always: ${describeAlways(approval.tool, approval.always_pattern, scope, conv?.folder ?? null, lifetime)}.\n`);
      else throw new UsageError('No "always allow" can be saved for this call; approve it once instead (without --always).');
    }
    const outcome = await withInterrupt(options, async (opts) => {
      const decided =
        sub === 'answer'
          ? await runtime.answerRequest(id, answerValue, opts)
          : await runtime.decideApproval(
              id,
              sub === 'approve' ? { approved: true, always: !!values.always, ...(values.always ? { scope, lifetime } : {}), by: 'the CLI' } : { approved: false, ...(values.reason ? { reason: values.reason } : {}), by: 'the CLI' },
              opts,
            );
      // A resumed run that finished here may have started background tasks: wait for them like `run` does.
      // A subagent's answer continues its tree: what its top conversation waits for (a finished child's wake-up).
      const top = runtime.subagents.byConversation(run.conversation_id)?.root_conversation_id ?? run.conversation_id;
      return decided && decided.status === 'finished' ? awaitBackground(runtime, top, values, opts, decided) : decided;
    });
    if (!outcome) return EXIT.finished;
    if (outcome.status === 'running') {
      process.stderr.write(`Recorded. Run ${outcome.runId} is live in another Deskhand process and continues there.\n`);
      return EXIT.finished;
    }
    if (outcome.status === 'parked' && outcome.approvalIds.length && !values.json) {
      process.stderr.write(`Still waiting for: ${outcome.approvalIds.join(', ')}\n`);
    }
    return exitFor(outcome);
  } finally {
    await closeRuntime(runtime);
  }
}

/** `deskhand runs answer HOLD_ID --value '{"usd": 5}'` (or `{"stop": true}`): a budget hold; a raise resumes the run here. */
async function answerHoldCommand(runtime: Runtime, id: string, sub: 'approve' | 'deny' | 'answer', values: RunsFlags, answerValue: unknown): Promise<number> {
  if (sub !== 'answer') throw new UsageError(`${id} is a budget hold: answer it with deskhand runs answer ${id} --value '{"usd": N}' (or '{"tokens": N}', or '{"stop": true}').`);
  const hold = runtime.records.usage.hold(id);
  if (!hold) throw new DeskhandError('not_found', `No budget hold ${id}. See \`deskhand runs list\`.`);
  const run = runtime.records.getRun(hold.run_id)!;
  const options = runOptions(runtime, providerFromFlags(values, run), !!values.json);
  await runtime.startMcp(runtime.records.getConversation(run.conversation_id)?.folder ?? undefined);
  const outcome = await withInterrupt(options, async (opts) => {
    const decided = await runtime.answerBudgetHold(id, answerValue, opts);
    return decided && decided.status === 'finished' ? awaitBackground(runtime, run.conversation_id, values, opts, decided) : decided;
  });
  return outcome ? exitFor(outcome) : EXIT.finished;
}

/** Ends what commands started (nothing outlives Deskhand), then closes the store (AppRuntime.close). */
async function closeRuntime(runtime: Runtime): Promise<void> {
  await runtime.close();
}

/**
 * `deskhand secrets list|set|delete`: the vault in the OS keyring. `set` reads the value without echo from a terminal
 * (or whole from stdin when piped), saves it, and answers every run waiting for that secret (`ask_user_secret` parked).
 */
export async function secretsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { ...PROVIDER_OPTIONS, description: { type: 'string' } },
  });
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), mcpStart: 'on-demand' });
  try {
    const vault = runtime.vault;
    if (!vault) throw new DeskhandError('internal', 'This host has no vault.');
    switch (sub) {
      case 'list': {
        const secrets = await vault.list();
        const waiting = runtime.pendingSecretRequests();
        if (values.json) {
          print({ secrets, requests: waiting.map((w) => ({ id: w.approval.id, runId: w.approval.run_id, name: w.name, description: w.description })) });
          return EXIT.finished;
        }
        if (secrets.length === 0) process.stdout.write('No saved secrets.\n');
        for (const x of secrets) process.stdout.write(`${x.name}${x.description ? `  ${x.description}` : ''}\n`);
        for (const w of waiting) process.stdout.write(`  waiting: run ${w.approval.run_id} asks for ${w.name} (deskhand secrets set ${w.name})\n`);
        return EXIT.finished;
      }
      case 'set': {
        const name = positionals[0];
        if (!name) throw new UsageError('secrets set needs a NAME.');
        assertSecretName(name);
        const requests = runtime.pendingSecretRequests(name);
        const value = await readSecretValue(`Value for ${name}${requests[0]?.description ? ` (${requests[0].description})` : ''}: `);
        if (!value) throw new UsageError('The value is empty; nothing was saved.');
        if (requests.length === 0) {
          await vault.set(name, value, values.description);
          process.stderr.write(`Saved ${name} in the OS keyring.\n`);
          return EXIT.finished;
        }
        const run = runtime.records.getRun(requests[0]!.approval.run_id);
        const options = runOptions(runtime, providerFromFlags(values, run), !!values.json);
        const outcomes = await withInterrupt(options, (opts) => runtime.provideSecretByName(name, value, values.description, opts));
        process.stderr.write(`Saved ${name} in the OS keyring; ${requests.length} waiting run${requests.length === 1 ? '' : 's'} continued.\n`);
        const last = outcomes.at(-1);
        return last ? exitFor(last) : EXIT.finished;
      }
      case 'delete': {
        const name = positionals[0];
        if (!name) throw new UsageError('secrets delete needs a NAME.');
        const had = await vault.delete(name);
        process.stderr.write(had ? `Deleted ${name}.\n` : `No saved secret ${name}.\n`);
        return had ? EXIT.finished : EXIT.failed;
      }
      default:
        throw new UsageError('secrets needs list, set NAME or delete NAME.');
    }
  } finally {
    await closeRuntime(runtime);
  }
}

/** A secret from the terminal without echo (Ctrl-C cancels), or everything on stdin when it is not a terminal. */
async function readSecretValue(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  }
  return readHidden(prompt);
}

function runOptions(runtime: Runtime, provider: ProviderConfig, json: boolean): RunOptions {
  const interactive = !json && !!process.stdin.isTTY && !!process.stderr.isTTY;
  const prompts = new PromptQueue(runtime);
  return {
    provider,
    interactive,
    onEvent: (event) => {
      if (json) print(event);
      else renderEvent(event);
      if (interactive && event.type === 'approval.requested') prompts.ask(event);
      if (interactive && event.type === 'input.requested') prompts.input(event);
    },
    // A subagent's requests are asked on this terminal too (labelled), instead of waiting for another process.
    onChildRequest: (event) => {
      if (!interactive) return;
      const child = runtime.subagents.byConversation(event.conversationId);
      process.stderr.write(`\n[subagent ${child ? `${child.id} "${child.description}"` : event.conversationId} asks]\n`);
      renderEvent(event);
      if (event.type === 'approval.requested') prompts.ask(event);
      else prompts.input(event);
    },
  };
}

/** The first Ctrl-C stops the run cleanly (children ended, history consistent); a second one exits at once. */
async function withInterrupt<T>(options: RunOptions, fn: (options: RunOptions) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let count = 0;
  const onSignal = () => {
    count++;
    if (count > 1) process.exit(130);
    process.stderr.write('\nStopping… (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await fn({ ...options, signal: controller.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function exitFor(outcome: RunOutcome): number {
  if (outcome.status === 'finished') return EXIT.finished;
  if (outcome.status === 'parked') return EXIT.parked;
  return EXIT.failed;
}
