/** What the CLI's commands share: exit codes, the usage error, and the flags several commands parse the same way. */
import type { parseArgs } from 'node:util';
import { isPolicy, type Policy } from '../../../shared/tools';
import { isSandboxMode, type SandboxMode } from '../../../shared/sandbox';
import { errorMessage } from '../../../shared/errors';
import { parseFamilies } from '../../runtime/prompt/tool-families';

export { UsageError, providerFromFlags } from '../assembly/provider-choice';
import { UsageError } from '../assembly/provider-choice';

export const EXIT = { finished: 0, failed: 1, usage: 2, parked: 3 } as const;


export const PROVIDER_OPTIONS = {
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  /** off, low, medium, high, max or a budget in tokens (runtime/loop/reasoning.ts). */
  thinking: { type: 'string' },
  /** chat (Chat Completions, the default) or responses (the Responses API); --provider openai only. */
  'openai-api': { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function parseSandbox(value: string | undefined): SandboxMode | undefined {
  if (value === undefined) return undefined;
  if (!isSandboxMode(value)) throw new UsageError(`--sandbox must be one of workspace-write, read-only, off (got "${value}").`);
  return value;
}

export function parsePolicy(value: string | undefined): Policy | undefined {
  if (value === undefined) return undefined;
  if (!isPolicy(value)) throw new UsageError(`--policy must be one of none, read-only, low-risk, high-risk (got "${value}").`);
  return value;
}


/** The flags of `deskhand runs …` (cli/runs.ts; approve|deny|answer in cli/agent.ts). */
export const RUNS_OPTIONS = { ...PROVIDER_OPTIONS, always: { type: 'boolean' }, scope: { type: 'string' }, for: { type: 'string' }, reason: { type: 'string' }, value: { type: 'string' } } as const;

export type RunsFlags = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof RUNS_OPTIONS }>>['values'];

/** `--enable browser,computer`: tool families loaded from the conversation's first request (tool-families.ts). */
export function enableFlag(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    return parseFamilies(value);
  } catch (err) {
    throw new UsageError(`--enable: ${errorMessage(err)}`);
  }
}

export function isParseArgsError(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && String((err as { code: string }).code).startsWith('ERR_PARSE_ARGS');
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
