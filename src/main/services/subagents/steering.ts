/**
 * How a steering message reaches a child: a user message with a header saying who sent it — its parent agent
 * (steer_subagent, a workflow, the tower) or the person (the subagent tree in the UI, `deskhand subagents steer`).
 * The header is written only by Deskhand, and a child's transcript is read back with it to label each message.
 */
import type { SteeringSender } from '../store/modules/subagents';

const HEADERS: Record<SteeringSender, string> = {
  parent: '[Message from your parent agent, sent while you work]',
  person: '[Message from the person you work for (the user, through Deskhand), not from your parent agent; sent while you work]',
};

/** The user message a child receives for one steering message. */
export function steeringText(from: SteeringSender, message: string): string {
  return `${HEADERS[from]}\n${message}`;
}

/** Who sent a steering message in a child's transcript, and its words; null for any other message. */
export function parseSteering(text: string): { from: SteeringSender; message: string } | null {
  for (const from of Object.keys(HEADERS) as SteeringSender[]) if (text.startsWith(`${HEADERS[from]}\n`)) return { from, message: text.slice(HEADERS[from].length + 1) };
  return null;
}
