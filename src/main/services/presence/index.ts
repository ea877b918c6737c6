/**
 * Who else is working where (who_is_here, Spec I): other Deskhand runs — in this process or any other on the same
 * data dir — that are running or parked, their conversation's folder, and the writes their tools made recently.
 */
export interface PresenceRun {
  runId: string;
  conversationId: string;
  title: string;
  folder: string;
  status: 'running' | 'parked';
  /** The process driving it is alive (a parked run has none). */
  ownerAlive: boolean;
  ownerPid: number | null;
  /** Writing tool calls of the run in the window: the tool, the path it named (if any), its status and when. */
  writes: { tool: string; path: string | null; status: string; at: number }[];
}

export interface PresenceService {
  activeRuns(windowMs: number): PresenceRun[];
}

