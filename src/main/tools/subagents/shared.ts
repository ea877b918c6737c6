/** Parameters and result text shared by the subagent tools. */
import { z } from 'zod';
import { CHILD_PROVIDERS, SUBAGENT_TYPES, SUBAGENT_TYPE_NAME, type SubagentRow, type Subagents } from '../../services/subagents/index';
import type { Effects, EffectsContext, ToolContext, ToolResult } from '../../runtime/tool';
import { ToolError } from '../../../shared/errors';

export const typeParam = z
  .string()
  .regex(SUBAGENT_TYPE_NAME, { error: `type is one name: ${SUBAGENT_TYPES.join(', ')} or an agent definition's` })
  .optional()
  .describe('The persona. coder (default): the parent\'s tools and policy; explore: read-only tools only; researcher: read-only tools (web included), answers with sources; general: like coder; or an agent definition\'s name (listed in your instructions).');
export const limitParams = {
  max_minutes: z.number().positive().max(240).optional().describe('Stop the child after this many minutes (default 120; capped by Deskhand\'s limit).'),
  max_tokens: z.number().int().positive().optional().describe('Stop the child after this many tokens (input + output).'),
  max_cost_usd: z.number().positive().optional().describe('Stop the child when its estimated cost passes this (USD).'),
};
/** A child's own model: another model of the parent's provider, or (with `provider`) any provider configured here. */
export const modelParams = {
  model: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^\S+$/, { error: 'model is one model name, such as gpt-4o-mini or claude-haiku-4-5' })
    .optional()
    .describe('The child\'s model (default: yours). Another model of your provider, or of `provider`.'),
  provider: z.enum(CHILD_PROVIDERS).optional().describe('The provider of `model` when it is not yours (it must be configured here: its API key set).'),
};

export function modelOf(args: { model?: string | undefined; provider?: string | undefined }): { model?: { provider?: string; model: string } } {
  if (args.provider && !args.model) throw new ToolError('provider needs model: name the model to use on that provider.');
  return args.model ? { model: { model: args.model, ...(args.provider ? { provider: args.provider } : {}) } } : {};
}

/**
 * A child on a provider other than the conversation's sends its brief (and all it reads) to that provider: egress to
 * its host, which asks once the run is tainted, and a reason naming the provider on the approval card.
 */
export function providerEffects(subagents: Pick<Subagents, 'otherProvider'>, tool: string, args: { provider?: string | undefined }, ctx: EffectsContext): Effects {
  if (!args.provider) return {};
  const other = subagents.otherProvider(ctx.conversationId, args.provider);
  if (!other) return {};
  const where = other.host ? `${other.provider} (${other.host})` : other.provider;
  return {
    egress: true,
    ...(other.host ? { hosts: [other.host] } : {}),
    assessment: { risk: 'read-only', reasons: [`${tool} is read-only`, `the child runs on ${where}, not on this conversation's provider: the brief and everything the child reads go to ${other.provider}`] },
  };
}

export const resultSchemaParam = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('A JSON Schema the child\'s final answer must match; a mismatch is sent back to the child once with the validation error.');

export function limitsOf(args: { max_minutes?: number | undefined; max_tokens?: number | undefined; max_cost_usd?: number | undefined }) {
  return {
    ...(args.max_minutes !== undefined ? { maxMinutes: args.max_minutes } : {}),
    ...(args.max_tokens !== undefined ? { maxTokens: args.max_tokens } : {}),
    ...(args.max_cost_usd !== undefined ? { maxCostUSD: args.max_cost_usd } : {}),
  };
}

/** A subagent tool's call runs again when its parked run resumes: its foreground children may park with it. */
export const callContext = (ctx: ToolContext) => ({ runId: ctx.runId, conversationId: ctx.conversationId, callId: ctx.callId, signal: ctx.signal, parks: true });

/** A result naming the children; untrusted (tainting the parent) when any child read untrusted content. */
export function childResult(text: string, rows: readonly SubagentRow[]): ToolResult {
  return rows.some((r) => r.tainted === 1) ? { output: text, untrustedSource: 'subagent result (the subagent read untrusted content)' } : { output: text };
}

export function statusLine(r: SubagentRow): string {
  const spend = `${r.input_tokens + r.output_tokens} tokens, ~$${r.cost_usd.toFixed(4)}`;
  return `${r.id} [${r.status}] ${r.type}: ${r.description} (${spend}${r.task_id ? `, task ${r.task_id}` : ''}${r.tainted ? ', read untrusted content' : ''})`;
}
