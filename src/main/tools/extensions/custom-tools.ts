/**
 * Custom tools from agent configuration (`custom-tools.json` in the data dir): a name, a description, a JSON Schema
 * and a command template given as an argv array (`["grep", "-n", "{pattern}", "{path}"]`). Each argument is put into
 * its own argv element and shell-quoted whole, so `; rm -rf ~` arrives as one literal argument and never as shell
 * syntax. The built command is classified and sandboxed exactly like execute_command (the shell family's classifier
 * and sandbox, passed in by the host); the declared tier replaces the classifier's judgement of an unknown program,
 * never its always-ask findings (sensitive paths, Deskhand's data).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import type { SandboxMode } from '../../../shared/sandbox';
import type { RiskTier } from '../../../shared/tools';
import type { Classification, EffectsContext, ToolDefinition } from '../../runtime/tool';
import type { SandboxPlan } from '../../services/sandbox';
import type { TaskService } from '../../services/tasks';
import { customToolSchema, type CustomToolConfig } from '../../../shared/custom-tools';

/** What custom tools need to know about commands (the shell family provides it; the host passes it in). */
export interface CommandRunner {
  classify(command: string, ctx: EffectsContext): Classification;
  withSandbox(base: Classification, ask: { network?: boolean | undefined }, ctx: Pick<EffectsContext, 'sandbox'>): Classification;
  plan(ask: { network?: boolean | undefined }, ctx: { sandbox?: SandboxMode | undefined; state: { workspaceRoots: readonly string[] } }, cwd: string): SandboxPlan;
  sandboxLine(plan: SandboxPlan): string;
}

export { customToolSchema, type CustomToolConfig } from '../../../shared/custom-tools';

const fileSchema = z.strictObject({ tools: z.array(customToolSchema) });

/** Reads `custom-tools.json`: the tools, and what was wrong with the file (never silently nothing). */
export function readCustomTools(dataDir: string): { tools: CustomToolConfig[]; error: string | null } {
  const path = join(dataDir, 'custom-tools.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { tools: [], error: null };
  }
  try {
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { tools: parsed.data.tools, error: null };
    return { tools: [], error: `${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  } catch (err) {
    return { tools: [], error: `${path} is not valid JSON (${(err as Error).message})` };
  }
}

/** Single-quotes one argument for bash: nothing inside is syntax. */
export function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The argv of one call: placeholders filled per element; an element that is only `{list}` expands to one per item. */
export function buildArgv(template: readonly string[], args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const part of template) {
    const whole = /^\{([A-Za-z_][\w]*)\}$/.exec(part);
    if (whole && Array.isArray(args[whole[1]!])) {
      for (const item of args[whole[1]!] as unknown[]) out.push(asText(item));
      continue;
    }
    let dropped = false;
    const filled = part.replace(/\{([A-Za-z_][\w]*)\}/g, (_m, key: string) => {
      const v = args[key];
      if (v === undefined || v === null) {
        dropped = !!whole;
        return '';
      }
      return asText(v);
    });
    if (!dropped) out.push(filled);
  }
  if (out.some((a) => a.includes('\0'))) throw new ToolError('An argument contains a NUL character, which cannot be passed to a program.', 'invalid_args');
  return out;
}

export const commandLine = (argv: readonly string[]): string => argv.map(shellQuote).join(' ');

export function createCustomTool(config: CustomToolConfig, deps: { commands: CommandRunner; tasks: TaskService }): ToolDefinition {
  const assess = (args: Record<string, unknown>, ctx: EffectsContext): Classification => {
    const command = commandLine(buildArgv(config.command, args));
    const c = deps.commands.classify(command, ctx);
    const judged: Classification = config.tier
      ? { ...c, risk: config.tier as RiskTier, reasons: [`custom tool ${config.name}: tier ${config.tier} by configuration`, ...c.reasons], rulePattern: c.alwaysAsk ? null : `custom:${config.name}` }
      : c;
    return deps.commands.withSandbox(judged, { network: config.network }, ctx);
  };
  return {
    name: config.name,
    kind: 'custom',
    description: `${config.description}\n(Custom tool: runs ${config.command[0]} in the sandbox.)`,
    params: z.record(z.string(), z.unknown()),
    inputSchema: config.inputSchema,
    risk: 'unknown',
    disclosure: 'private',
    effects: (args, ctx) => {
      const assessment = assess(args as Record<string, unknown>, ctx);
      return { assessment, processes: true, network: !!config.network || !!assessment.network };
    },
    presentation: { title: config.name.replace(/_/g, ' '), icon: 'terminal', result: 'terminal', summary: (args) => commandLine(buildArgv(config.command, args as Record<string, unknown>)).slice(0, 140) },
    timeoutMs: (config.timeoutMs ?? 60_000) + 5_000,
    async execute(args, ctx) {
      const command = commandLine(buildArgv(config.command, args as Record<string, unknown>));
      const cwd = ctx.state.cwd;
      const plan = deps.commands.plan({ network: config.network }, ctx, cwd);
      const task = deps.tasks.startCommand({ conversationId: ctx.conversationId, runId: ctx.runId, callId: ctx.callId, command, cwd, plan, background: false, title: config.name });
      const proc = task.process;
      const timeoutMs = config.timeoutMs ?? 60_000;
      let stopped: string | null = null;
      const timer = setTimeout(() => {
        stopped = `timed out after ${timeoutMs} ms`;
        void proc.stop('timeout');
      }, timeoutMs);
      const onAbort = () => {
        stopped = 'stopped with the run';
        void proc.stop('interrupted');
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const exit = await proc.exited.finally(() => {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
      });
      await task.finished;
      const out = proc.stdout.toString().replace(/\n$/, '');
      const err = proc.stderr.toString().replace(/\n$/, '');
      const lines = [
        ...(stopped ? [stopped] : []),
        `exit code: ${exit.code ?? `none (${exit.signal ?? 'killed'})`}`,
        deps.commands.sandboxLine(plan),
        '--- stdout ---',
        out || '(empty)',
        ...(err ? ['--- stderr ---', err] : []),
      ];
      return { output: lines.join('\n'), untrustedSource: 'command output' };
    },
  };
}
