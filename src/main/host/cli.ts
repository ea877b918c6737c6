/**
 * The `deskhand` CLI: the same runtime as the desktop app, headless. Exit codes: 0 finished, 3 parked waiting for an
 * approval, 1 failed, 2 usage error.
 */
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RunEvent } from '../../shared/events';
import { DeskhandError, errorMessage } from '../../shared/errors';
import { isPolicy, type Policy } from '../../shared/tools';
import { DEFAULT_MODELS, KEY_ENV, isProviderName, type ProviderConfig, type ProviderName } from '../services/providers/providers';
import type { RunOutcome, RunOptions, Runtime } from '../runtime/runtime';
import { openRuntime, resolveDataDir } from './open-runtime';
import { webCommand } from './web-command';

export const EXIT = { finished: 0, failed: 1, usage: 2, parked: 3 } as const;

const USAGE = `Usage:
  deskhand run [--provider anthropic|openai|openai-compatible] [--base-url URL] [--model NAME]
               [--policy none|read-only|low-risk|high-risk] [--cwd DIR] [--data-dir DIR]
               [--conversation ID] [--max-steps N] [--json] PROMPT
  deskhand runs list [--json]
  deskhand runs show RUN_ID [--json]
  deskhand runs approve APPROVAL_ID [--always] [--json]
  deskhand runs deny APPROVAL_ID [--reason TEXT] [--json]
  deskhand policy explain --tool NAME --args JSON [--policy P] [--cwd DIR]

Keys come from ANTHROPIC_API_KEY / OPENAI_API_KEY. --data-dir defaults to DESKHAND_HOME, else the OS app-data folder.
Exit codes: 0 finished, 3 parked waiting for approval, 1 failed, 2 usage error.`;

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
      case 'web':
        return await webCommand(rest);
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
    },
  });
  const prompt = positionals.join(' ').trim();
  if (!prompt) throw new UsageError('run needs a PROMPT.');
  const policy = parsePolicy(values.policy);
  const cwd = resolve(values.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${cwd} is not a folder.`);
  const maxSteps = values['max-steps'] === undefined ? undefined : Number(values['max-steps']);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1)) throw new UsageError('--max-steps must be a positive integer.');
  const provider = providerFromFlags(values);
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']), maxSteps });
  try {
    let conversationId = values.conversation;
    if (conversationId) {
      if (!runtime.store.getConversation(conversationId)) throw new UsageError(`No conversation ${conversationId}.`);
    } else {
      conversationId = runtime.createConversation({ folder: cwd, policy: policy ?? 'read-only' }).id;
    }
    const options = runOptions(runtime, provider, !!values.json);
    const outcome = await withInterrupt(options, (opts) =>
      runtime.sendMessage(conversationId!, prompt, { ...opts, ...(policy ? { policy } : {}) }),
    );
    return exitFor(outcome);
  } finally {
    runtime.store.close();
  }
}

async function runsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { ...PROVIDER_OPTIONS, always: { type: 'boolean' }, reason: { type: 'string' } },
  });
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']) });
  try {
    const store = runtime.store;
    switch (sub) {
      case 'list': {
        const runs = store.listRuns(50);
        const pending = store.pendingApprovals();
        if (values.json) {
          print({ runs, approvals: pending });
        } else {
          if (runs.length === 0) process.stdout.write('No runs yet.\n');
          for (const r of runs) {
            const conv = store.getConversation(r.conversation_id);
            process.stdout.write(`${r.id}  ${r.status.padEnd(11)} ${new Date(r.created_at).toISOString()}  ${conv?.title ?? ''}\n`);
          }
          for (const a of pending) process.stdout.write(`  waiting: ${a.id}  ${a.tool}  (${a.risk})  run ${a.run_id}\n`);
        }
        return EXIT.finished;
      }
      case 'show': {
        const id = positionals[0];
        if (!id) throw new UsageError('runs show needs a RUN_ID.');
        const run = store.getRun(id);
        if (!run) throw new DeskhandError('not_found', `No run ${id}. See \`deskhand runs list\`.`);
        const calls = store.toolCallsForRun(id).map((c) => ({ ...c, args: JSON.parse(c.args) as unknown, reasons: JSON.parse(c.reasons) as unknown }));
        const approvals = store.db.prepare('SELECT * FROM approvals WHERE run_id = ? ORDER BY created_at').all(id);
        if (values.json) {
          print({ run, toolCalls: calls, approvals });
        } else {
          process.stdout.write(`${run.id}  ${run.status}  ${run.provider}/${run.model}  policy ${run.policy}  steps ${run.step}  tokens ${run.input_tokens}/${run.output_tokens}\n`);
          if (run.error) process.stdout.write(`error: ${run.error}\n`);
          for (const c of calls) process.stdout.write(`  [${c.step}.${c.position}] ${c.tool} ${c.status} ${c.risk ?? ''} ${c.decision ?? ''}\n`);
          for (const a of approvals as { id: string; tool: string; status: string }[]) process.stdout.write(`  approval ${a.id} ${a.tool} ${a.status}\n`);
        }
        return EXIT.finished;
      }
      case 'approve':
      case 'deny': {
        const id = positionals[0];
        if (!id) throw new UsageError(`runs ${sub} needs an APPROVAL_ID.`);
        const approval = store.getApproval(id);
        if (!approval) throw new DeskhandError('not_found', `No approval ${id}. See \`deskhand runs list\`.`);
        const run = store.getRun(approval.run_id)!;
        const provider = providerFromFlags(values, run);
        const options = runOptions(runtime, provider, !!values.json);
        const outcome = await withInterrupt(options, (opts) =>
          runtime.decideApproval(
            id,
            sub === 'approve' ? { approved: true, always: !!values.always } : { approved: false, ...(values.reason ? { reason: values.reason } : {}) },
            opts,
          ),
        );
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
        throw new UsageError(`runs needs list, show, approve or deny.`);
    }
  } finally {
    runtime.store.close();
  }
}

async function policyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'explain') throw new UsageError('policy needs the subcommand explain.');
  const { values } = parseArgs({
    args: rest,
    options: { tool: { type: 'string' }, args: { type: 'string' }, policy: { type: 'string' }, cwd: { type: 'string' }, 'data-dir': { type: 'string' } },
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
  const runtime = openRuntime({ dataDir: resolveDataDir(values['data-dir']) });
  try {
    const result = await runtime.explain(values.tool, parsed, parsePolicy(values.policy) ?? 'read-only', resolve(values.cwd ?? process.cwd()));
    print(result);
    return EXIT.finished;
  } catch (err) {
    if (DeskhandError.isInstance(err) && (err.code === 'unknown_tool' || err.code === 'invalid_args')) throw new UsageError(err.message);
    throw err;
  } finally {
    runtime.store.close();
  }
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

let midLine = false;
function renderEvent(event: RunEvent): void {
  const err = (line: string) => {
    if (midLine) process.stdout.write('\n');
    midLine = false;
    process.stderr.write(`${line}\n`);
  };
  switch (event.type) {
    case 'text':
      process.stdout.write(event.delta);
      midLine = !event.delta.endsWith('\n');
      break;
    case 'tool.call':
      err(`→ ${event.tool} ${JSON.stringify(event.args).slice(0, 200)}`);
      break;
    case 'tool.result':
      err(`  ${event.status === 'ok' ? '✓' : '✗'} ${event.tool} (${event.durationMs} ms) ${event.output.split('\n')[0]?.slice(0, 160) ?? ''}`);
      break;
    case 'approval.requested':
      err(`! approval needed ${event.approvalId}: ${event.description} [${event.risk}] — ${event.reasons.at(-1) ?? ''}`);
      if (event.preview) err(event.preview);
      break;
    case 'run.retry':
      err(`… retrying in ${Math.round(event.delayMs / 100) / 10} s (attempt ${event.attempt}): ${event.reason}`);
      break;
    case 'run.parked':
      err(`Run ${event.runId} is parked waiting for approval. Answer with: deskhand runs approve ${event.approvalIds[0]} (or deny).`);
      break;
    case 'run.finished':
      if (midLine) process.stdout.write('\n');
      midLine = false;
      if (event.error) process.stderr.write(`deskhand: ${event.error}\n`);
      break;
    default:
      break;
  }
}

/** Asks approvals one at a time on the terminal. */
class PromptQueue {
  private chain: Promise<void> = Promise.resolve();
  constructor(private readonly runtime: Runtime) {}

  ask(event: Extract<RunEvent, { type: 'approval.requested' }>): void {
    this.chain = this.chain.then(async () => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const always = event.alwaysPattern ? `, [A]lways allow ${event.tool} for ${event.alwaysPattern}` : '';
        const answer = (await rl.question(`Approve ${event.tool}? [y]es${always}, [n]o: `)).trim();
        if (answer === 'A' && event.alwaysPattern) await this.runtime.decideApproval(event.approvalId, { approved: true, always: true });
        else if (/^y(es)?$/i.test(answer)) await this.runtime.decideApproval(event.approvalId, { approved: true });
        else {
          const reason = (await rl.question('Reason for the model (optional): ')).trim();
          await this.runtime.decideApproval(event.approvalId, { approved: false, ...(reason ? { reason } : {}) });
        }
      } catch (err) {
        process.stderr.write(`deskhand: ${errorMessage(err)}\n`);
      } finally {
        rl.close();
      }
    });
  }
}
