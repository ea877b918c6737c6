/**
 * The contract's tools-on-demand methods (the /tools panel, the family toggles, the system prompt view): what a
 * conversation's agent may use, turning tool families on or off for it, and the system prompt in full with the
 * project instructions it carries. Schemas kept beside contract.ts. Pure.
 */
import { z } from 'zod';
import { RESULT_HINTS, TOOL_ICONS, type ToolPresentationView } from '../tool-presentation';
import { familyNameSchema } from './ids';

/** How the UI shows a tool (declared by the tool; see shared/tool-presentation.ts). */
export const toolPresentationSchema = z.strictObject({
  name: z.string(),
  title: z.string(),
  icon: z.enum(TOOL_ICONS),
  result: z.enum(RESULT_HINTS),
  kind: z.enum(['builtin', 'mcp', 'custom']),
});
// The schema and the tools' declared presentation type must agree.
const _presentationsMatch: [z.infer<typeof toolPresentationSchema>] extends [ToolPresentationView] ? ([ToolPresentationView] extends [z.infer<typeof toolPresentationSchema>] ? true : false) : false = true;
void _presentationsMatch;


/** One tool as `deskhand tools` lists it. */
export const conversationToolSchema = z.strictObject({
  name: z.string(),
  family: z.string(),
  tier: z.string(),
  /** Whether a call asks the person under the conversation's policy; `per call`: decided from each call's arguments. */
  asks: z.enum(['no', 'yes', 'per call']),
  /** loaded: its schema is in the next request; deferred: search_tools or a call loads it; off: search_tools or enabling. */
  load: z.enum(['loaded', 'deferred', 'off']),
});
export type ConversationToolView = z.infer<typeof conversationToolSchema>;

export const toolFamilySchema = z.strictObject({
  name: z.string(),
  summary: z.string(),
  /** default: always loaded; enabled: on for this conversation; profile: on by its agent profile; deferred / off: not loaded yet. */
  state: z.enum(['default', 'enabled', 'profile', 'deferred', 'off']),
  /** How it loads when nothing enables it: always, on demand (search_tools or a call), or off (search_tools or enabling). */
  loads: z.enum(['always', 'on-demand', 'off']),
  tools: z.number().int(),
  loadedTools: z.number().int(),
});
export type ToolFamilyView = z.infer<typeof toolFamilySchema>;

/** The project instruction files (AGENTS.md, CLAUDE.md) a conversation's prompt carries, as context_info reports them. */
export const instructionsViewSchema = z.strictObject({
  files: z.array(
    z.strictObject({
      path: z.string(),
      scope: z.enum(['personal', 'workspace', 'outside']),
      size: z.number(),
      loadedBytes: z.number(),
      cut: z.boolean(),
      untrusted: z.boolean(),
      /** sha256 of the file's text (what trusting pins). */
      sha256: z.string(),
      /** A workspace file whose text matches the person's pin (the personal file always; outside ones never). */
      trusted: z.boolean(),
    }),
  ),
  refused: z.array(z.strictObject({ path: z.string(), reason: z.string() })),
  capBytes: z.strictObject({ perFile: z.number(), total: z.number() }),
});
export type InstructionsView = z.infer<typeof instructionsViewSchema>;

export const conversationToolsSchema = z.strictObject({
  conversationId: z.string(),
  policy: z.string(),
  tools: z.array(conversationToolSchema),
  families: z.array(toolFamilySchema),
  instructions: instructionsViewSchema,
});
export type ConversationToolsView = z.infer<typeof conversationToolsSchema>;

const conversationId = z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id');

export const toolsMethods = {
  /** Every registered tool's presentation (title, icon, result hint), for tool and approval cards. */
  listTools: { params: z.strictObject({}), result: z.strictObject({ tools: z.array(toolPresentationSchema) }) },
  /** What this conversation's agent may use (tier, asks, family, loaded), its families and its project instructions. */
  getConversationTools: { params: z.strictObject({ conversationId }), result: conversationToolsSchema },
  /** Turns families on or off for a conversation: their schemas are in its next model request (or leave it). */
  setConversationFamilies: {
    params: z.strictObject({ conversationId, families: z.array(familyNameSchema).min(1).max(40), enabled: z.boolean() }),
    result: conversationToolsSchema,
  },
  /**
   * The system prompt in full, as `deskhand prompt show` prints it: a conversation's next request's, or (without
   * one) a new conversation's in the default folder under the current settings (policy, enabled families, provider).
   */
  getSystemPrompt: {
    params: z.strictObject({ conversationId: conversationId.optional() }),
    result: z.strictObject({
      prompt: z.string(),
      folder: z.string(),
      policy: z.string(),
      provider: z.string(),
      instructions: instructionsViewSchema,
      /** Every family with how it loads for that conversation (Settings shows the default set for new ones). */
      families: z.array(toolFamilySchema),
    }),
  },
  /**
   * The person trusts the workspace instruction files this conversation's prompt carries: each is pinned by path and
   * sha256; until then (and after any change) they reach the model as untrusted content and taint the run.
   */
  trustInstructions: { params: z.strictObject({ conversationId }), result: conversationToolsSchema },
} as const;

export const TOOLS_METHOD_NAMES = ['getConversationTools', 'setConversationFamilies', 'getSystemPrompt', 'trustInstructions'] as const;
