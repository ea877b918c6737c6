/**
 * The `deskhand` CLI: the same runtime as the desktop app, headless. Exit codes: 0 finished, 3 parked waiting for an
 * approval, 1 failed, 2 usage error.
 */
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeAlways } from '../../shared/always-allow';
import { forDisplay } from '../../shared/untrusted-display';
import { DeskhandError, errorMessage } from '../../shared/errors';
import { isPolicy, type Policy } from '../../shared/tools';
import { isSandboxMode, type SandboxMode } from '../../shared/sandbox';
import { DEFAULT_MODELS, KEY_ENV, isProviderName, type ProviderConfig, type ProviderName } from '../services/providers/providers';
import type { RunOutcome, RunOptions } from '../runtime/runtime';
import type { AppRuntime as Runtime } from './open-runtime';
import { closeOpenRuntimes, openRuntime, resolveDataDir } from './open-runtime';
import { TaskWakes } from './task-wakes';
import { renderEvent } from './cli-render';
import { webCommand } from './web-command';
import { assertSecretName } from '../services/vault/vault';
import { PromptQueue, readHidden } from './cli-prompts';
import { grantsCommand, rulesCommand, searchCommand } from './cli-web';
import { RULE_SCOPES, isRuleScope, type RuleScope } from '../../shared/rules';
import { goalsCommand, memoryCommand } from './cli-memory';
import { fireCommandMain, scheduleCommand } from './cli-schedule';
import { mcpCommand, profilesCommand } from './cli-mcp';
import { compositionsCommand } from './cli-compositions';
import { mediaCommand } from './cli-media';
import { subagentsCommand } from './cli-subagents';
import { conversationsCommand } from './cli-chat';
import { costOf, formatCost, runTokens } from '../../shared/prices';
import { workflowsCommand } from './cli-workflows';
import { towerCommand } from './cli-tower';
import { parseFamilies } from '../runtime/tool-families';
import { promptCommand, toolsCommand } from './cli-prompt-tools';

export const EXIT = { finished: 0, failed: 1, usage: 2, parked: 3 } as const;

import { USAGE } from './cli-usage';

class UsageError extends Error {}

const PROVIDER_OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest);
      case 'runs':
        return await runsCommand(rest);
      case 'policy':
        return await policyCommand(rest);
      case 'rules':
        return await rulesCommand(rest);
      case 'secrets':
        return await secretsCommand(rest);
      case 'web':
        return await webCommand(rest);
      case 'grants':
        return await grantsCommand(rest);
      case 'search':
        return await searchCommand(rest);
      case 'memory':
        return await memoryCommand(rest);
      case 'goals':
        return await goalsCommand(rest);
      case 'fire':
        return await fireCommandMain(rest);
      case 'schedule':
        return await scheduleCommand(rest);
      case 'mcp':
        return await mcpCommand(rest);
      case 'profiles':
        return await profilesCommand(rest);
      case 'compositions':
        return await compositionsCommand(rest);
      case 'media':
        return await mediaCommand(rest);
      case 'subagents':
        return await subagentsCommand(rest);
      case 'conversations':
        return await conversationsCommand(rest);
      case 'workflows':
        return await workflowsCommand(rest);
      case 'tower':
        return await towerCommand(rest);
      case 'prompt':
        return await promptCommand(rest);
      case 'tools':
        return await toolsCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? EXIT.usage : EXIT.finished;
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (err) {
    if (err instanceof UsageError || (DeskhandError.isInstance(err) && err.code === 'usage') || isParseArgsError(err)) {
      process.stderr.write(`deskhand: ${errorMessage(err)}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`deskhand: ${errorMessage(err)}\n`);
    return EXIT.failed;
  } finally {
    // The exit path: whatever a command opened and did not close ends here (nothing keeps the process alive).
    await closeOpenRuntimes();
  }
}

/** `--enable browser,computer`: tool families loaded from the conversation's first request (tool-families.ts). */
function enableFlag(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    return parseFamilies(value);
  } catch (err) {
    throw new UsageError(`--enable: ${errorMessage(err)}`);
  }
}

function isParseArgsError(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && String((err as { code: string }).code).startsWith('ERR_PARSE_ARGS');
}

async function runCommand(args: string[]): Promise<number> {
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
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), maxSteps });
  try {
    // An agent profile gives defaults (model, policy, sandbox) that flags override, and narrows the tools.
    const profile = values.profile === undefined ? null : runtime.profiles.get(values.profile);
    if (values.profile !== undefined && !profile) throw new UsageError(`No agent profile "${values.profile}". See deskhand profiles list.`);
    const provider = providerFromFlags({ ...values, provider: values.provider ?? profile?.provider, model: values.model ?? profile?.model });
    const runSandbox = sandbox ?? profile?.sandbox;
    let conversationId = values.conversation;
    if (conversationId) {
      if (!runtime.store.getConversation(conversationId)) throw new UsageError(`No conversation ${conversationId}.`);
      if (runSandbox) runtime.store.updateConversation(conversationId, { sandbox: runSandbox });
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

/** Ends what commands started (nothing outlives Deskhand), then closes the store (AppRuntime.close). */
async function closeRuntime(runtime: Runtime): Promise<void> {
  await runtime.close();
}

export function parseSandbox(value: string | undefined): SandboxMode | undefined {
  if (value === undefined) return undefined;
  if (!isSandboxMode(value)) throw new UsageError(`--sandbox must be one of workspace-write, read-only, off (got "${value}").`);
  return value;
}

async function runsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { ...PROVIDER_OPTIONS, always: { type: 'boolean' }, scope: { type: 'string' }, reason: { type: 'string' }, value: { type: 'string' } },
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
  // Listing and showing start no MCP server; a resumed run connects them first (below).
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), mcpStart: 'on-demand' });
  try {
    const store = runtime.store;
    switch (sub) {
      case 'list': {
        const runs = store.listRuns(50);
        // A descendant's request (a subagent parked with its parent's call) names its child and the run it parks.
        const pending = store.pendingApprovals().map((a) => ({ ...a, ...subagentOf(runtime, a.run_id) }));
        if (values.json) {
          print({ runs, approvals: pending });
        } else {
          if (runs.length === 0) process.stdout.write('No runs yet.\n');
          for (const r of runs) {
            const conv = store.getConversation(r.conversation_id);
            process.stdout.write(`${r.id}  ${r.status.padEnd(11)} ${new Date(r.created_at).toISOString()}  ${conv?.title ?? ''}\n`);
          }
          for (const a of pending) {
            const child = a.subagent ? `  subagent ${a.subagent.id} "${forDisplay(a.subagent.description).text}" of run ${a.subagent.parentRunId ?? '?'}` : '';
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
        if (values.json) {
          print({ run, costUsd: costOf(run.model, runTokens(run)), toolCalls: calls, approvals });
        } else {
          const conv = store.getConversation(run.conversation_id);
          const out = (line: string) => process.stdout.write(`${line}\n`);
          out(`${run.id}  ${run.status}  ${run.provider}/${run.model}  policy ${run.policy}  steps ${run.step}  tokens ${run.input_tokens} in${run.cache_read_tokens || run.cache_write_tokens ? ` (cache: ${run.cache_read_tokens} read, ${run.cache_write_tokens} written)` : ''} / ${run.output_tokens} out  cost ${formatCost(costOf(run.model, runTokens(run))) ?? 'unknown (no price for this model)'}`);
          out(`conversation ${run.conversation_id}${conv ? `  "${conv.title}"  in ${conv.folder}` : ''}`);
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
      case 'approve':
      case 'deny':
      case 'answer': {
        const id = positionals[0];
        if (!id) throw new UsageError(`runs ${sub} needs a REQUEST_ID (see \`deskhand runs list\`).`);
        const approval = store.getApproval(id);
        if (!approval) throw new DeskhandError('not_found', `No request ${id}. See \`deskhand runs list\`.`);
        const run = store.getRun(approval.run_id)!;
        const provider = providerFromFlags(values, run);
        const options = runOptions(runtime, provider, !!values.json);
        if (values.scope !== undefined && !(sub === 'approve' && values.always)) throw new UsageError('--scope goes with runs approve --always.');
        if (values.scope !== undefined && !isRuleScope(values.scope)) throw new UsageError(`--scope must be one of ${RULE_SCOPES.join(', ')} (got "${values.scope}").`);
        const scope: RuleScope = isRuleScope(values.scope) ? values.scope : 'conversation';
        // The resumed run may call MCP tools: their servers connect (or fail) first, the trusted project servers of
        // the conversation's folder included (as `deskhand run` starts them).
        await runtime.startMcp(store.getConversation(run.conversation_id)?.folder ?? undefined);
        if (sub === 'approve' && values.always) {
          // Exactly what "always" saves, before it is saved (a rule, or a workspace root of this conversation).
          const conv = store.getConversation(run.conversation_id);
          if (approval.always_pattern) process.stderr.write(`Always: ${describeAlways(approval.tool, approval.always_pattern, scope, conv?.folder ?? null)}.\n`);
          else throw new UsageError('No "always allow" can be saved for this call; approve it once instead (without --always).');
        }
        const outcome = await withInterrupt(options, async (opts) => {
          const decided =
            sub === 'answer'
              ? await runtime.answerRequest(id, answerValue, opts)
              : await runtime.decideApproval(
                  id,
                  sub === 'approve' ? { approved: true, always: !!values.always, ...(values.always ? { scope } : {}), by: 'the CLI' } : { approved: false, ...(values.reason ? { reason: values.reason } : {}), by: 'the CLI' },
                  opts,
                );
          // A resumed run that finished here may have started background tasks: wait for them like `run` does.
          return decided && decided.status === 'finished' ? awaitBackground(runtime, run.conversation_id, values, opts, decided) : decided;
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
      }
      default:
        throw new UsageError(`runs needs list, show, approve, deny or answer.`);
    }
  } finally {
    await closeRuntime(runtime);
  }
}

/** The subagent whose run asks (its id, type, description and parent run), for listing its requests. */
function subagentOf(runtime: Runtime, runId: string): { subagent?: { id: string; type: string; description: string; parentRunId: string | null } } {
  const run = runtime.store.getRun(runId);
  const row = run && runtime.subagents.byConversation(run.conversation_id);
  return row ? { subagent: { id: row.id, type: row.type, description: row.description, parentRunId: row.parent_run_id } } : {};
}

async function policyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'explain') throw new UsageError('policy needs the subcommand explain.');
  const { values } = parseArgs({
    args: rest,
    options: {
      tool: { type: 'string' },
      args: { type: 'string' },
      policy: { type: 'string' },
      cwd: { type: 'string' },
      'data-dir': { type: 'string' },
      sandbox: { type: 'string' },
      root: { type: 'string', multiple: true },
      tainted: { type: 'boolean' },
      conversation: { type: 'string' },
    },
  });
  if (!values.tool) throw new UsageError('policy explain needs --tool NAME.');
  let parsed: unknown = {};
  if (values.args !== undefined) {
    try {
      parsed = JSON.parse(values.args);
    } catch (err) {
      throw new UsageError(`--args is not valid JSON: ${errorMessage(err)}`);
    }
  }
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), mcpStart: 'on-demand' });
  try {
    // An MCP tool is known only once its server has connected; no other explanation starts a server.
    if (values.tool.startsWith('mcp__')) await runtime.startMcp(resolve(values.cwd ?? process.cwd()));
    const result = await runtime.explain(values.tool, parsed, parsePolicy(values.policy) ?? 'read-only', resolve(values.cwd ?? process.cwd()), parseSandbox(values.sandbox), {
      tainted: !!values.tainted,
      roots: (values.root ?? []).map((r) => resolve(r)),
      ...(values.conversation ? { conversationId: values.conversation } : {}),
    });
    print(result);
    return EXIT.finished;
  } catch (err) {
    if (DeskhandError.isInstance(err) && (err.code === 'unknown_tool' || err.code === 'invalid_args')) throw new UsageError(err.message);
    throw err;
  } finally {
    await closeRuntime(runtime);
  }
}

/**
 * `deskhand secrets list|set|delete`: the vault in the OS keyring. `set` reads the value without echo from a terminal
 * (or whole from stdin when piped), saves it, and answers every run waiting for that secret (`ask_user_secret` parked).
 */
async function secretsCommand(args: string[]): Promise<number> {
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
        const run = runtime.store.getRun(requests[0]!.approval.run_id);
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

export function parsePolicy(value: string | undefined): Policy | undefined {
  if (value === undefined) return undefined;
  if (!isPolicy(value)) throw new UsageError(`--policy must be one of none, read-only, low-risk, high-risk (got "${value}").`);
  return value;
}

export function providerFromFlags(
  values: { provider?: string | undefined; 'base-url'?: string | undefined; model?: string | undefined },
  run?: { provider: string; model: string; base_url: string | null },
): ProviderConfig {
  let provider: ProviderName;
  const requested = values.provider ?? run?.provider;
  if (requested !== undefined) {
    if (!isProviderName(requested)) throw new UsageError(`--provider must be anthropic, openai or openai-compatible (got "${requested}").`);
    provider = requested;
  } else if (values['base-url']) {
    provider = 'openai-compatible';
  } else if (process.env.ANTHROPIC_API_KEY) {
    provider = 'anthropic';
  } else if (process.env.OPENAI_API_KEY) {
    provider = 'openai';
  } else {
    throw new UsageError('No model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider openai-compatible --base-url URL.');
  }
  const baseURL = values['base-url'] ?? run?.base_url ?? null;
  if (baseURL !== null) {
    try {
      new URL(baseURL);
    } catch {
      throw new UsageError(`--base-url is not a URL: ${baseURL}`);
    }
  }
  if (provider === 'openai-compatible' && !baseURL) throw new UsageError('--provider openai-compatible needs --base-url URL.');
  const keyEnv = KEY_ENV[provider];
  const apiKey = keyEnv ? process.env[keyEnv] : (process.env.OPENAI_API_KEY ?? null);
  if (keyEnv && !apiKey) throw new UsageError(`${keyEnv} is not set.`);
  return { provider, model: values.model ?? run?.model ?? DEFAULT_MODELS[provider], baseURL, apiKey: apiKey ?? null };
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

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
