/** Events a run emits. The CLI prints them as JSON Lines; the UI hosts forward them over the contract. */
import type { Decision, RiskTier } from './tools';

export type RunStatus = 'running' | 'parked' | 'finished' | 'failed' | 'aborted' | 'interrupted';

export interface Usage {
  /** Every input token of the requests, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Of the input tokens: read from the provider's prompt cache (billed at a fraction of the input price). */
  cacheReadTokens?: number;
  /** Of the input tokens: written to the prompt cache (Anthropic bills them above the input price). */
  cacheWriteTokens?: number;
}

export type RunEvent =
  | { type: 'run.started'; conversationId: string; runId: string; resumed: boolean }
  /** `step`: the step whose text this is (a UI that loaded the stored steps skips their live text). */
  | { type: 'text'; runId: string; delta: string; step?: number }
  /** A reasoning model's thinking as it streams (redacted like text); shown collapsed, never part of the reply. */
  | { type: 'thinking'; runId: string; delta: string; step?: number }
  /** `summary`: the tool's own one-line summary of the call (its presentation), when it declares one. */
  | { type: 'tool.call'; runId: string; callId: string; tool: string; args: unknown; summary?: string }
  | {
      type: 'tool.decision';
      runId: string;
      callId: string;
      tool: string;
      risk: RiskTier | null;
      decision: Decision;
      reasons: string[];
    }
  | {
      type: 'approval.requested';
      runId: string;
      conversationId: string;
      approvalId: string;
      callId: string;
      tool: string;
      args: unknown;
      risk: RiskTier;
      reasons: string[];
      description: string;
      preview: string | null;
      /** What an "always allow" rule would cover, or null when none may be saved for this call. */
      alwaysPattern: string | null;
    }
  /** Something other than an approval the run asks a person (a secret, a question, a file pick…). */
  | {
      type: 'input.requested';
      runId: string;
      conversationId: string;
      requestId: string;
      kind: string;
      callId: string;
      tool: string;
      description: string;
      prompt: string;
      /** What the UI draws the request from (the questions and options, the secret's name). Never a secret. */
      data: unknown;
      /** JSON Schema of the answer `deskhand runs answer --value` takes. */
      schema: Record<string, unknown>;
    }
  /** Family state a tool changed (the todo list), for every UI. */
  | { type: 'state.changed'; conversationId: string; slot: 'todos'; value: { id: string; title: string; status: 'pending' | 'in_progress' | 'done'; priority?: 'low' | 'medium' | 'high' }[] }
  | { type: 'approval.decided'; runId: string; approvalId: string; decision: 'approved' | 'denied'; always: boolean; reason?: string }
  | { type: 'tool.output'; runId: string; callId: string; stream: 'stdout' | 'stderr'; chunk: string }
  | { type: 'tool.result'; runId: string; callId: string; tool: string; status: 'ok' | 'error' | 'denied' | 'interrupted'; output: string; durationMs: number; summary?: string }
  | { type: 'usage'; runId: string; step: number; usage: Usage }
  | { type: 'run.retry'; runId: string; attempt: number; delayMs: number; reason: string }
  /** `budget`: parked by a budget before a model call (a hold, answered with a raise or a stop), not by a request. */
  | { type: 'run.parked'; runId: string; conversationId: string; approvalIds: string[]; budget?: { holdId: string; message: string } }
  | { type: 'run.finished'; runId: string; conversationId: string; status: RunStatus; error?: string; usage: Usage; steps: number }
  /**
   * Compaction of the model's view: `started` before the summary call (a notice), `done` once its record is stored
   * (the transcript shows what was dropped).
   */
  | { type: 'context.compaction'; phase: 'started' | 'done'; runId: string; conversationId: string; reason: string; tokensBefore: number; droppedMessages: number; tokensAfter?: number }
  /**
   * What a lifecycle hook said, for the person (docs/hooks.md), as it is stored (the transcript's `hook` item): a Stop
   * or SubagentStop hook's reason that sent the model back to work (`toModel`: the model reads it as its next message;
   * a project's inside the untrusted envelope), or a firing's notes (a `systemMessage`, a failing hook's line) that
   * the model never reads. Neither is the model's text nor the person's.
   */
  | { type: 'hook.note'; runId: string; conversationId: string; event: string; text: string; toModel: boolean };

export type RunEventType = RunEvent['type'];
