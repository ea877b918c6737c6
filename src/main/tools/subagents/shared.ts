/** Parameters and result text shared by the subagent tools. */
import { z } from 'zod';
import { SUBAGENT_TYPES, type SubagentRow } from '../../services/subagents/index';
import type { ToolContext, ToolResult } from '../../runtime/tool';

export const typeParam = z.enum(SUBAGENT_TYPES).optional().describe('coder (default): the parent\'s tools and policy; explore: read-only tools only; general: like coder.');
export const limitParams = {
  max_minutes: z.number().positive().max(240).optional().describe('Stop the child after this many minutes (capped by Deskhand\'s limit).'),
  max_tokens: z.number().int().positive().optional().describe('Stop the child after this many tokens (input + output).'),
  max_cost_usd: z.number().positive().optional().describe('Stop the child when its estimated cost passes this (USD).'),
};
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
