/**
 * What a conversation's agent may use, as `deskhand tools` prints it and the UI's /tools panel shows it: every tool
 * its next request may call with its family, risk tier, whether a call asks the person under the conversation's
 * policy, and whether its schema is loaded, deferred (search_tools or a call loads it) or off (browser, computer
 * use); and every family with how it loads in this conversation. One computation for both hosts, from the same
 * registry turn the run loop builds its tool set from.
 */
import { policyClears, type Policy } from '../../../shared/tools';
import { PersistentConversationState } from '../context/conversation-state';
import type { ToolRegistry, TurnContext } from '../registry';
import { DEFAULT_FAMILIES, FAMILY_SUMMARIES, OFF_FAMILIES, enabledFamiliesOf, type LoadState } from './tool-families';

export interface ToolRow {
  name: string;
  family: string;
  tier: string;
  /** `per call`: the tool's risk is decided from each call's arguments (a command, a URL). */
  asks: 'no' | 'yes' | 'per call';
  load: LoadState;
}

/**
 * How a family loads in a conversation: `default` (always loaded), `enabled` (turned on for this conversation),
 * `profile` (turned on by its agent profile), or `deferred` / `off` (not loaded until search_tools or enabling;
 * some of its tools may be loaded already, see `loadedTools`).
 */
export type FamilyState = 'default' | 'enabled' | 'profile' | 'deferred' | 'off';

export interface FamilyRow {
  name: string;
  summary: string;
  state: FamilyState;
  /** How it loads when nothing enables it: always, on demand (search_tools or a call), or off (search_tools or enabling). */
  loads: 'always' | 'on-demand' | 'off';
  tools: number;
  loadedTools: number;
}

export interface ToolListing {
  policy: Policy;
  tools: ToolRow[];
  families: FamilyRow[];
}

/** The parts of a conversation row the listing reads (a stored row, or a preview of a new conversation). */
export interface ListedConversation {
  id: string;
  folder: string;
  policy: string;
  state: string;
}

export function turnOf(conv: ListedConversation): TurnContext {
  const state = new PersistentConversationState(conv.folder, conv.state);
  return { conversationId: conv.id, policy: conv.policy as Policy, revealed: state.revealedTools, slots: state.slots, enabled: enabledFamiliesOf(state.slots) };
}

export function toolListing(registry: ToolRegistry, conv: ListedConversation): ToolListing {
  const turn = turnOf(conv);
  const policy = turn.policy;
  const set = registry.toolSet(turn);
  const tools: ToolRow[] = set.callable
    .map((name) => registry.lookup(name)!)
    .filter((tool, i, all) => all.indexOf(tool) === i)
    .map((tool) => ({
      name: tool.name,
      family: registry.familyOf(tool.name) ?? 'core',
      tier: tool.risk,
      asks: tool.risk === 'unknown' ? 'per call' : policyClears(policy, tool.risk) ? 'no' : 'yes',
      load: registry.loadState(tool.name, turn),
    }));
  const own = new Set(turn.enabled);
  const all = registry.enabledIn(turn);
  const families: FamilyRow[] = [];
  for (const name of registry.families()) {
    const mine = tools.filter((t) => t.family === name);
    if (mine.length === 0) continue;
    const state: FamilyState = (DEFAULT_FAMILIES as readonly string[]).includes(name)
      ? 'default'
      : own.has(name)
        ? 'enabled'
        : all.has(name)
          ? 'profile'
          : (OFF_FAMILIES as readonly string[]).includes(name)
            ? 'off'
            : !(name in FAMILY_SUMMARIES) && mine.every((t) => t.load === 'loaded')
              ? 'default'
              : 'deferred';
    const loads = (DEFAULT_FAMILIES as readonly string[]).includes(name) || state === 'default' ? 'always' : (OFF_FAMILIES as readonly string[]).includes(name) ? 'off' : 'on-demand';
    families.push({ name, summary: FAMILY_SUMMARIES[name] ?? 'more tools', state, loads, tools: mine.length, loadedTools: mine.filter((t) => t.load === 'loaded').length });
  }
  return { policy, tools, families };
}
