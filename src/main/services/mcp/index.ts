/**
 * The MCP service as tools and hosts see it: configured and project servers, their health, their tools, resources
 * and prompts, and calls. The implementation (manager.ts, connection.ts) is built by the host.
 */
export type { McpServerConfig, McpTier, ProjectFile, ProjectScript } from './config';
export { MCP_TIERS, SERVER_NAME_RE, PROJECT_FILE, parseServerConfig, parseEnvPairs, readProjectFile } from './config';
export { pinServer, pinsChanged } from './pins';
import type { McpServerConfig, ProjectFile } from './config';

export interface McpToolInfo {
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnlyHint?: boolean | undefined;
}

export interface McpHealth {
  name: string;
  status: 'connected' | 'connecting' | 'failed' | 'stopped';
  toolCount: number;
  lastError: string | null;
  stderrTail: string | null;
  restarts: number;
  nextRetryAt: number | null;
}

export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
  | { type: 'resource_link'; uri: string; name?: string; description?: string };

export interface McpCallResult {
  content: McpContent[];
  isError: boolean;
  structured?: unknown;
}

export interface McpServerView {
  config: McpServerConfig;
  health: McpHealth;
  tools: McpToolInfo[];
}

/** Tools of one server changed (connected, reconnected with a new list, removed: `tools` empty). */
export type ToolsListener = (server: McpServerConfig, tools: McpToolInfo[]) => void;

export interface McpService {
  servers(): McpServerView[];
  server(name: string): McpServerView | undefined;
  onToolsChanged(listener: ToolsListener): () => void;
  onHealthChanged(listener: (health: McpHealth) => void): () => void;
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
  listResources(server: string): Promise<{ uri: string; name: string; description?: string | undefined; mimeType?: string | undefined }[]>;
  readResource(server: string, uri: string, signal: AbortSignal): Promise<McpContent[]>;
  listPrompts(server: string): Promise<{ name: string; description?: string | undefined; arguments?: { name: string; required?: boolean | undefined }[] | undefined }[]>;
  getPrompt(server: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<string>;
  /**
   * A workspace's `.deskhand/mcp.json` (read through the guarded reader), and whether its pin — the file and every
   * workspace script its servers run — is the one the person approved.
   */
  projectFile(folder: string): { file: ProjectFile | null; trusted: boolean; error: string | null };
  /** Records the person's approval of a project file (by its content hash) and starts its servers. */
  trustProject(folder: string, sha256: string): Promise<McpServerView[]>;
  /** Starts the servers of a trusted project file (no-op when untrusted or absent). */
  startProject(folder: string): Promise<void>;
  /**
   * Whether a connected server's tool list differs from the one the person last saw (`deskhand mcp test` shows and
   * records it; a server's first list after it was added counts as seen). Read from the store at every call.
   */
  toolsUnseen(name: string): boolean;
}
