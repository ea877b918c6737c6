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

/** A slash command as the composer's menu shows it: built-in (`/tools`), the person's, a plugin's or the folder's. */
export const commandViewSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  argumentHint: z.string().nullable(),
  origin: z.enum(['builtin', 'person', 'plugin', 'project']),
});
export type CommandView = z.infer<typeof commandViewSchema>;

const pluginLabel = z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}@[A-Za-z0-9][\w.-]{0,63}$/, { error: 'a plugin is NAME@MARKETPLACE' });
export const pluginViewSchema = z.strictObject({ label: z.string(), version: z.string().nullable(), description: z.string(), enabled: z.boolean() });
export const marketplaceViewSchema = z.strictObject({
  name: z.string(),
  source: z.string(),
  error: z.string().nullable(),
  plugins: z.array(z.strictObject({ name: z.string(), description: z.string(), installed: z.boolean() })),
});
const pluginsView = z.strictObject({ plugins: z.array(pluginViewSchema), marketplaces: z.array(marketplaceViewSchema) });
export type PluginsView = z.infer<typeof pluginsView>;

const compatFolder = z.string().min(1).max(4096).refine((f) => /^([A-Za-z]:)?[\\/]/.test(f), { error: 'an absolute folder path' });
/** A folder's Claude Code compatibility, and which of `.claude/commands`, `.claude/agents`, `.claude/settings.json` it has. */
export const claudeCompatView = z.strictObject({ folder: z.string(), on: z.boolean(), claude: z.array(z.string()) });
export type ClaudeCompatView = z.infer<typeof claudeCompatView>;

export const extensionMethods = {
  /** The slash commands a message in this conversation may start with (the composer's menu). */
  listCommands: { params: z.strictObject({ conversationId: z.string().max(100) }), result: z.strictObject({ commands: z.array(commandViewSchema) }) },
  /** Installed plugins and the marketplaces added (Settings → Plugins). */
  listPlugins: { params: z.strictObject({}), result: pluginsView },
  addMarketplace: { params: z.strictObject({ source: z.string().min(1).max(2000) }), result: pluginsView },
  /**
   * Installing in two steps, as the CLI does: without `accept` it only fetches the plugin and returns what it brings
   * (hooks, servers, commands, agents, skills) for the person to read; with `accept: true` it installs that.
   */
  installPlugin: { params: z.strictObject({ label: pluginLabel, accept: z.boolean().optional() }), result: pluginsView.extend({ preview: z.string().nullable() }) },
  setPluginEnabled: { params: z.strictObject({ label: pluginLabel, enabled: z.boolean() }), result: pluginsView },
  removePlugin: { params: z.strictObject({ label: pluginLabel }), result: pluginsView },
  /** Claude Code compatibility for a folder: whether its `.claude/commands`, `.claude/agents` and `.claude/settings.json` hooks are read. */
  getClaudeCompat: { params: z.strictObject({ folder: compatFolder }), result: claudeCompatView },
  setClaudeCompat: { params: z.strictObject({ folder: compatFolder, on: z.boolean() }), result: claudeCompatView },
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

export const PLUGIN_METHOD_NAMES = ['listCommands', 'listPlugins', 'addMarketplace', 'installPlugin', 'setPluginEnabled', 'removePlugin', 'getClaudeCompat', 'setClaudeCompat'] as const;

export const EXTENSION_METHOD_NAMES = ['listMcpServers', 'addMcpServer', 'removeMcpServer', 'testMcpServer', 'listProfiles', 'setConversationProfile'] as const;
