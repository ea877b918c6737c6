/**
 * The contract's extensions methods (MCP servers and their health, agent profiles): schemas kept beside contract.ts so
 * the families' additions stay in their own file. Pure.
 */
import { z } from 'zod';

export const mcpServerNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,39}$/, 'a server name is 1–40 letters, digits or dashes');
export const mcpTierSchema = z.enum(['ask', 'read-only', 'low-risk', 'high-risk']);

/** One MCP server as Settings → MCP shows it: configuration in words and its last known health. */
export const mcpServerViewSchema = z.strictObject({
  name: z.string(),
  transport: z.string(),
  target: z.string(),
  tier: z.string(),
  enabled: z.boolean(),
  status: z.string(),
  tools: z.number(),
  lastError: z.string().nullable(),
  stderrTail: z.string().nullable(),
  restarts: z.number(),
  checkedAt: z.string().nullable(),
});
export type McpServerViewRow = z.infer<typeof mcpServerViewSchema>;

export const addMcpServerSchema = z.strictObject({
  name: mcpServerNameSchema,
  /** stdio: the command line (program and arguments, split on spaces; quote with "…" to keep spaces). */
  command: z.string().trim().max(4000).optional(),
  /** http/sse: the server URL. */
  url: z.string().trim().max(2000).optional(),
  transport: z.enum(['stdio', 'http', 'sse']),
  tier: mcpTierSchema.default('ask'),
  env: z.record(z.string(), z.string()).optional(),
});

export const profileViewSchema = z.strictObject({
  name: z.string(),
  description: z.string().nullable(),
  model: z.string().nullable(),
  policy: z.string().nullable(),
  sandbox: z.string().nullable(),
  allowedTools: z.array(z.string()).nullable(),
  deniedTools: z.array(z.string()).nullable(),
});
export type ProfileView = z.infer<typeof profileViewSchema>;

const servers = z.strictObject({ servers: z.array(mcpServerViewSchema) });

export const extensionMethods = {
  /** Configured MCP servers with their last known health (connected, tools, last error with stderr tail). */
  listMcpServers: { params: z.strictObject({}), result: servers },
  /** Adds (or replaces) a server and connects it; its health comes back in the list. */
  addMcpServer: { params: addMcpServerSchema, result: servers },
  removeMcpServer: { params: z.strictObject({ name: mcpServerNameSchema }), result: servers },
  /** Reconnects one server now (a fresh start); the list carries the result. */
  testMcpServer: { params: z.strictObject({ name: mcpServerNameSchema }), result: servers },
  /** Agent profiles, and the one a conversation uses (when given). */
  listProfiles: {
    params: z.strictObject({ conversationId: z.string().max(100).optional() }),
    result: z.strictObject({ profiles: z.array(profileViewSchema), current: z.string().nullable() }),
  },
  /** Chooses a conversation's agent profile (its policy and sandbox become the conversation's). */
  setConversationProfile: {
    params: z.strictObject({ conversationId: z.string().max(100), profile: z.string().max(64) }),
    result: z.strictObject({ profiles: z.array(profileViewSchema), current: z.string().nullable() }),
  },
} as const;

export const EXTENSION_METHOD_NAMES = ['listMcpServers', 'addMcpServer', 'removeMcpServer', 'testMcpServer', 'listProfiles', 'setConversationProfile'] as const;
