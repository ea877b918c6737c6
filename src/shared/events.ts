/** Events a run emits. The CLI prints them as JSON Lines; the UI hosts forward them over the contract. */
import type { Decision, RiskTier } from './tools';

export type RunStatus = 'running' | 'parked' | 'finished' | 'failed' | 'aborted' | 'interrupted';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type RunEvent =
  | { type: 'run.started'; conversationId: string; runId: string; resumed: boolean }
  | { type: 'text'; runId: string; delta: string }
  | { type: 'tool.call'; runId: string; callId: string; tool: string; args: unknown }
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
  | { type: 'approval.decided'; runId: string; approvalId: string; decision: 'approved' | 'denied'; always: boolean; reason?: string }
  | { type: 'tool.output'; runId: string; callId: string; stream: 'stdout' | 'stderr'; chunk: string }
  | { type: 'tool.result'; runId: string; callId: string; tool: string; status: 'ok' | 'error' | 'denied' | 'interrupted'; output: string; durationMs: number }
  | { type: 'usage'; runId: string; step: number; usage: Usage }
  | { type: 'run.retry'; runId: string; attempt: number; delayMs: number; reason: string }
  | { type: 'run.parked'; runId: string; conversationId: string; approvalIds: string[] }
  | { type: 'run.finished'; runId: string; conversationId: string; status: RunStatus; error?: string; usage: Usage; steps: number };

export type RunEventType = RunEvent['type'];
