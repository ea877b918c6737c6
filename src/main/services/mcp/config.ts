/**
 * MCP server configuration: what a person configured (CLI, Settings) or a project file declares. Validated with zod;
 * errors are sentences a person can act on.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Server names become part of tool names (`mcp__<server>__<tool>`): letters, digits and dashes. */
export const SERVER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9-]{0,39}$/;
export const MCP_TIERS = ['ask', 'read-only', 'low-risk', 'high-risk'] as const;
export type McpTier = (typeof MCP_TIERS)[number];
/** Environment variable names: a secret named in `secretEnv` is read from the vault when the server starts. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const tier = z.enum(MCP_TIERS);
const common = {
  name: z.string().regex(SERVER_NAME_RE, { error: 'a server name is 1–40 letters, digits or dashes (it becomes part of tool names mcp__<server>__<tool>)' }),
  /** The tier of every tool of this server (default `ask`: every call asks, under every policy). */
  tier: tier.optional(),
  /** Per-tool tiers, by the server's tool name. */
  toolTiers: z.record(z.string(), tier).optional(),
  enabled: z.boolean().optional(),
  /** How long one request may take (default 60 s). */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  /** Where the server came from: the person's configuration, or a workspace's `.deskhand/mcp.json`. */
  source: z.string().optional(),
};

export const stdioConfigSchema = z.strictObject({
  ...common,
  transport: z.literal('stdio'),
  command: z.string().min(1, { error: 'command is empty: give the program that starts the server' }),
  args: z.array(z.string()).optional(),
  /** Literal environment values (not secrets). */
  env: z.record(z.string().regex(ENV_NAME), z.string()).optional(),
  /** Environment variables filled from saved secrets: VARIABLE → secret name. Only these secrets reach the server. */
  secretEnv: z.record(z.string().regex(ENV_NAME), z.string()).optional(),
  cwd: z.string().optional(),
});

export const httpConfigSchema = z.strictObject({
  ...common,
  transport: z.enum(['http', 'sse']),
  url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
  headers: z.record(z.string(), z.string()).optional(),
  /** Sign in with OAuth when the server asks (tokens are kept in the keyring). */
  oauth: z.boolean().optional(),
});

export const serverConfigSchema = z.discriminatedUnion('transport', [stdioConfigSchema, httpConfigSchema]);
export type McpServerConfig = z.infer<typeof serverConfigSchema>;
export type StdioServerConfig = z.infer<typeof stdioConfigSchema>;
export type HttpServerConfig = z.infer<typeof httpConfigSchema>;

export function parseServerConfig(value: unknown): McpServerConfig {
  const parsed = serverConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(`Invalid MCP server configuration: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ')}`);
}

/** `K=V` pairs from the CLI. */
export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at) : '';
    if (!ENV_NAME.test(key)) throw new Error(`--env takes NAME=VALUE (got "${pair}").`);
    env[key] = pair.slice(at + 1);
  }
  return env;
}

/** The project file of a workspace: `.deskhand/mcp.json` with `{"mcpServers": {NAME: {command, args, env} | {url}}}`. */
export const PROJECT_FILE = join('.deskhand', 'mcp.json');

export interface ProjectFile {
  path: string;
  sha256: string;
  text: string;
  servers: McpServerConfig[];
}

const projectEntry = z.looseObject({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  type: z.string().optional(),
  transport: z.string().optional(),
  tier: tier.optional(),
});

/** Reads a workspace's project file; null when there is none. Throws a readable error when it does not parse. */
export function readProjectFile(folder: string): ProjectFile | null {
  const path = join(folder, PROJECT_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message}).`);
  }
  const root = z.looseObject({ mcpServers: z.record(z.string(), projectEntry) }).safeParse(json);
  if (!root.success) throw new Error(`${path} must hold {"mcpServers": {"NAME": {"command": …, "args": […]} or {"url": …}}}.`);
  const servers = Object.entries(root.data.mcpServers).map(([name, e]) => {
    const kind = e.transport ?? e.type;
    const config = e.url
      ? { name, transport: kind === 'sse' ? 'sse' : 'http', url: e.url, ...(e.tier ? { tier: e.tier } : {}), source: path }
      : { name, transport: 'stdio', command: e.command ?? '', args: e.args ?? [], env: e.env ?? {}, ...(e.tier ? { tier: e.tier } : {}), cwd: folder, source: path };
    return parseServerConfig(config);
  });
  return { path, text, sha256: createHash('sha256').update(text).digest('hex'), servers };
}
