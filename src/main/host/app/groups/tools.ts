/**
 * Tools on demand for the UI (a handler group, handler-groups.ts): the /tools panel's listing (the same computation
 * `deskhand tools` prints, runtime/prompt/tool-listing.ts), the family toggles of the conversation header, and the system
 * prompt as `deskhand prompt show` prints it, for a conversation or for a new one under the current settings.
 */
import type { MethodResult, Settings } from '../../../../shared/contract';
import type { TOOLS_METHOD_NAMES } from '../../../../shared/contract/tools';
import { DeskhandError } from '../../../../shared/errors';
import { DEFAULT_FAMILIES, ENABLED_SLOT, parseFamilies } from '../../../runtime/prompt/tool-families';
import { toolListing } from '../../../runtime/prompt/tool-listing';
import type { HandlerGroup } from '../handler-groups';
import type { AppRuntime } from '../../assembly/open-runtime';
import { type ConversationRow } from '../../../runtime/records';

export interface ToolsHostOptions {
  /** The saved settings now (default policy, sandbox, folders, families for new conversations). */
  settings(): Settings;
  /** The provider new messages go to (provider flags win over the settings). */
  provider(): string;
  /** The folder a new conversation starts in when Settings names none. */
  defaultFolder(): string;
}

/** Family names a person sent (a toggle, Settings), checked against the families; unknown ones are a usage error. */
export function checkFamilies(names: readonly string[]): string[] {
  let families: string[];
  try {
    families = parseFamilies(names.join(','));
  } catch (err) {
    throw new DeskhandError('usage', (err as Error).message);
  }
  const always = families.filter((f) => (DEFAULT_FAMILIES as readonly string[]).includes(f));
  if (always.length) throw new DeskhandError('usage', `${always.join(', ')} ${always.length === 1 ? 'is' : 'are'} always loaded; only the other families can be turned on or off.`);
  return families;
}

/** The families Settings enables for new conversations, leaving out names no longer known (a hand-edited file). */
export function settingsFamilies(settings: Settings): string[] {
  const out: string[] = [];
  for (const name of settings.enableFamilies ?? []) {
    try {
      out.push(...checkFamilies([name]));
    } catch {
      // an unknown or always-loaded name enables nothing
    }
  }
  return out;
}

/** A new conversation under the current settings, not stored (the Settings prompt view). */
export function previewConversation(settings: Settings, folder: string): ConversationRow {
  const now = Date.now();
  return {
    id: 'conv_preview',
    title: 'New conversation',
    folder,
    policy: settings.defaultPolicy,
    sandbox: settings.defaultSandbox ?? 'workspace-write',
    state: JSON.stringify({ slots: { [ENABLED_SLOT]: settingsFamilies(settings) } }),
    created_at: now,
    updated_at: now,
  } as unknown as ConversationRow;
}

function conversationOf(runtime: AppRuntime, id: string): ConversationRow {
  const row = runtime.records.getConversation(id);
  if (!row) throw new DeskhandError('not_found', 'That conversation does not exist (it may have been deleted).');
  return row;
}

function toolsView(runtime: AppRuntime, conv: ConversationRow): MethodResult<'getConversationTools'> {
  const listing = toolListing(runtime.registry, conv);
  return { conversationId: conv.id, ...listing, instructions: runtime.instructionsFor(conv) };
}

export const toolsGroup =
  (opts: ToolsHostOptions): HandlerGroup<(typeof TOOLS_METHOD_NAMES)[number]> =>
  ({ runtime }) => ({
    getConversationTools: async (p) => toolsView(runtime, conversationOf(runtime, p.conversationId)),
    setConversationFamilies: async (p) => {
      conversationOf(runtime, p.conversationId);
      // A subagent's tools are its parent's at most (its ceiling): nothing is turned on for it from a UI.
      if (runtime.subagents.byConversation(p.conversationId)) throw new DeskhandError('usage', "This is a subagent's conversation: its tools come from its parent. Change the parent's instead.");
      runtime.setFamilies(p.conversationId, checkFamilies(p.families), p.enabled);
      return toolsView(runtime, conversationOf(runtime, p.conversationId));
    },
    trustInstructions: async (p) => {
      const conv = conversationOf(runtime, p.conversationId);
      runtime.trustInstructionsFor(conv);
      return toolsView(runtime, conv);
    },
    getSystemPrompt: async (p) => {
      const settings = opts.settings();
      const provider = opts.provider();
      const conv = p.conversationId ? conversationOf(runtime, p.conversationId) : previewConversation(settings, settings.workspaceFolders?.[0] ?? opts.defaultFolder());
      const prompt = p.conversationId ? runtime.promptFor(conv.id, provider) : runtime.promptFor(conv, provider);
      return { prompt, folder: conv.folder, policy: conv.policy, provider, instructions: runtime.instructionsFor(conv), families: toolListing(runtime.registry, conv).families };
    },
  });
