/**
 * The peer ceiling: what another person's agent (a peer over Agent2Agent) can make this agent use, computed here from
 * the peer's disclosure tier and allow list — never from anything in the peer's request. A tier grants the read-only
 * tools whose declared disclosure is at or below it (public < internal < private). It never grants:
 *
 * - a tool whose request sends material off the machine (Spec I "What leaves the machine": `facts.sendsOut`), nor any
 *   MCP or custom tool (where their arguments go is not knowable from here);
 * - the bookkeeping tools (`facts.bookkeeping`: manage_todos, update_work_state, manage_scratchpad, spawn_subagent):
 *   read-only for the person's own runs, but they write durable state or start child runs;
 * - the tools that reach the person's secrets, memory or other conversations (`facts.reaches`), and a private tool
 *   that does not declare what it reaches;
 * - anything that changes the machine (a tier other than read-only, or a tier classified per call).
 *
 * Each of those only when the peer's `allow` names it. Each fact is declared on the tool (runtime/tool.ts ToolFacts),
 * never kept in a list here. `request_clarification` is the peer conversation's own tool (`facts.peerOwn`: its one
 * question goes back to the peer that is already owed the answer), granted at every tier.
 *
 * Two doors hold it, both the peers family's hold (tools/peers/hold.ts): a registry filter hides what is above the
 * ceiling from the peer conversation's turns, and its inspector refuses a call above it even if the tool was offered
 * somehow — also a call whose declared effects reach the network, whatever the tool's name.
 */
import type { Disclosure } from '../../../shared/tools';
import type { PeerTier } from '../../../shared/peers';
import type { ToolDefinition } from '../tool';

export interface PeerCeiling {
  peer: string;
  tier: PeerTier;
  allow: readonly string[];
}

/** The peers family's hold's name (tools/peers/hold.ts): `policy explain --peer` sets its state. */
export const PEER_CEILING_HOLD = 'peer-ceiling';

/**
 * What a context block reveals, declared by its source, so a ceiling judges context the way it judges tools
 * (`peerContextCheck` below): `tier` ranks it like a tool's `disclosure`, `reveals` names what of the
 * person's own it carries beyond the conversation's folder (a peer's conversation never gets those).
 */
export interface ContextDisclosure {
  tier: Disclosure;
  reveals: readonly ContextReveal[];
}
/** `memory`: recalled memory or the agent's notes; `personal`: the person's own instructions; `home-path`: where their home is. */
export type ContextReveal = 'memory' | 'personal' | 'home-path';


const RANK: Record<Disclosure, number> = { public: 0, internal: 1, private: 2 };

export function disclosureRank(d: string): number {
  return (RANK as Record<string, number>)[d] ?? RANK.private;
}

/** A peer conversation's own tool (request_clarification): granted there at every tier, offered nowhere else. */
export function isPeerOwn(tool: Pick<ToolDefinition, 'facts'>): boolean {
  return !!tool.facts?.peerOwn;
}

/**
 * Why a tool is above a peer's ceiling (one line the model and the person can read), or null when the ceiling grants
 * it. `tool` is the definition as registered (its canonical name, risk, disclosure, kind).
 */
export function peerCeilingCheck(tool: Pick<ToolDefinition, 'name' | 'risk' | 'disclosure' | 'kind' | 'aliases' | 'facts'>, ceiling: PeerCeiling): string | null {
  const names = [tool.name, ...(tool.aliases ?? [])];
  if (names.some((n) => ceiling.allow.includes(n))) return null;
  const facts = tool.facts ?? {};
  if (facts.peerOwn) return null;
  const unless = `unless peer ${ceiling.peer}'s allow names it (deskhand peers allow ${ceiling.peer} ${tool.name})`;
  if ((tool.kind ?? 'builtin') !== 'builtin') return `${tool.name} is an ${tool.kind} tool: a disclosure tier never grants it, ${unless}.`;
  if (facts.sendsOut) return `${tool.name} sends material off this machine: a disclosure tier never grants it, ${unless}.`;
  if (facts.bookkeeping) return `${tool.name} writes the agent's bookkeeping or starts runs: a disclosure tier never grants it, ${unless}.`;
  if (facts.reaches?.length) return `${tool.name} reaches the person's secrets, memory or other conversations: a disclosure tier never grants it, ${unless}.`;
  if (tool.risk !== 'read-only') return `${tool.name} can change this machine (${tool.risk}): a disclosure tier never grants it, ${unless}.`;
  // Fail safe: a private tool that does not say what of the person's it reaches is taken to reach it.
  if (!facts.reaches && disclosureRank(tool.disclosure) >= RANK.private) return `${tool.name} does not declare what of the person's own it reaches: a disclosure tier never grants it, ${unless}.`;
  if (disclosureRank(tool.disclosure) > disclosureRank(ceiling.tier)) {
    return `${tool.name} reveals ${tool.disclosure} material, above peer ${ceiling.peer}'s tier (${ceiling.tier}): refused ${unless}.`;
  }
  return null;
}

/**
 * Context is judged like tools: a block of the system prompt (recall, the person's instructions, the environment's
 * paths…) goes into a peer's conversation only when what it declares it reveals is within the tier. What reveals the
 * person's memory, their own instructions or their home never does (no tier reaches them, as no tier reaches
 * `view_memory`); otherwise its tier ranks like a tool's disclosure. Returns why it is left out, or null.
 */
export function peerContextCheck(discloses: ContextDisclosure, ceiling: PeerCeiling): string | null {
  if (discloses.reveals.length) return `it reveals the person's ${discloses.reveals.join(', ')}, which no disclosure tier reaches`;
  if (disclosureRank(discloses.tier) > disclosureRank(ceiling.tier)) return `it reveals ${discloses.tier} material, above peer ${ceiling.peer}'s tier (${ceiling.tier})`;
  return null;
}
