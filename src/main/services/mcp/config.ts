/**
 * MCP server configuration: what a person configured (CLI, Settings) or a project file declares. Validated with zod;
 * errors are sentences a person can act on.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { ContentReader } from '../../../shared/content-reader';
import { DeskhandError } from '../../../shared/errors';

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
  /**
   * false: offer the server no roots. Otherwise it gets the calling conversation's folders (a server that takes roots,
   * such as server-filesystem, then works there instead of the folders on its command line).
   */
  roots: z.boolean().optional(),
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
  /**
   * The files the command line names, pinned when the person added the server (`mcp add`, Settings): a change to one
   * stops the server from starting until the person adds it again. Absolute paths.
   */
  pins: z.array(z.strictObject({ arg: z.string(), path: z.string(), sha256: z.string() })).optional(),
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

/** A workspace file a project server's command runs (named in its command or args), as the pin covers it. */
export interface ProjectScript {
  server: string;
  /** The command or argument as the file gives it. */
  arg: string;
  /** Where it really is (every link followed). */
  resolved: string;
  /** sha256 of its content; null when the guard refused to read it (then the pin covers its path only). */
  sha256: string | null;
  /** Why it was not read (a sensitive file, a link leaving the workspace). */
  note?: string;
}

export interface ProjectFile {
  path: string;
  /**
   * The pin a person approves: the file's sha256 when its servers run no workspace file, else the sha256 of the file
   * together with every workspace script its servers run (a rewritten `server.js` changes the pin).
   */
  sha256: string;
  /** sha256 of the file's own text. */
  fileSha256: string;
  text: string;
  servers: McpServerConfig[];
  /** The workspace files the servers' commands run, covered by the pin. */
  scripts: ProjectScript[];
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The workspace files a stdio server's command line names (the program itself, a script argument, `--flag=path`):
 * every word that names an existing path inside `folder` (as given, or once links are followed). Each is read
 * through the guarded reader and hashed; one the guard refuses is pinned by where it leads.
 */
export function projectScripts(server: McpServerConfig, folder: string, reader: ContentReader): ProjectScript[] {
  if (server.transport !== 'stdio') return [];
  const cwd = server.cwd ? resolve(folder, server.cwd) : folder;
  const words = [server.command, ...(server.args ?? [])].flatMap((w) => {
    const eq = /^--?[A-Za-z][\w-]*=(.+)$/.exec(w);
    return eq ? [w, eq[1]!] : [w];
  });
  const out: ProjectScript[] = [];
  const seen = new Set<string>();
  for (const arg of words) {
    if (!arg || arg.includes('\0')) continue;
    const abs = isAbsolute(arg) ? resolve(arg) : resolve(cwd, arg);
    const inside = (p: string) => {
      const rel = relative(folder, p);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    };
    let file;
    try {
      file = reader.read(abs, { roots: [folder], within: folder, maxBytes: 64 * 1024 * 1024 });
    } catch (err) {
      if (!DeskhandError.isInstance(err) || err.code === 'not_found') continue;
      // Refused (a link leaving the workspace, a sensitive file, not a regular file): pinned by path when it is named
      // inside the workspace; a folder or a program elsewhere is not the workspace's.
      if (!inside(abs) || /not a regular file/.test(err.message) || seen.has(abs)) continue;
      seen.add(abs);
      out.push({ server: server.name, arg, resolved: abs, sha256: null, note: err.message });
      continue;
    }
    if (seen.has(file.resolved)) continue;
    seen.add(file.resolved);
    out.push({ server: server.name, arg, resolved: file.resolved, sha256: file.sha256 });
  }
  return out;
}

/** The pin over the file and its scripts (the file's own hash when it runs none: pins approved before stay valid). */
export function projectPin(fileSha: string, scripts: readonly ProjectScript[]): string {
  if (!scripts.length) return fileSha;
  return sha256(JSON.stringify({ file: fileSha, scripts: scripts.map((s) => [s.server, s.arg, s.resolved, s.sha256]) }));
}

/**
 * Reads a workspace's project file through the guarded reader; null when there is none. Throws a readable error when
 * it does not parse or the guard refused it (a link leaving the workspace, a sensitive target).
 */
export function readProjectFile(folder: string, reader: ContentReader): ProjectFile | null {
  const path = join(folder, PROJECT_FILE);
  let text: string;
  try {
    text = reader.read(path, { roots: [folder], within: join(folder, '.deskhand'), anchor: folder }).text;
  } catch (err) {
    if (DeskhandError.isInstance(err) && err.code === 'not_found') return null;
    throw new Error((err as Error).message);
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
  const fileSha256 = sha256(text);
  const scripts = servers.flatMap((s) => projectScripts(s, folder, reader));
  return { path, text, sha256: projectPin(fileSha256, scripts), fileSha256, servers, scripts };
}
