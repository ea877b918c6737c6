/**
 * The MCP service as tools and hosts see it: configured and project servers, their health, their tools, resources
 * and prompts, and calls. The implementation (manager.ts, connection.ts) is built by the host.
 */
export type { McpServerConfig, McpTier, ProjectFile, ProjectScript } from './config';
export { MCP_TIERS, SERVER_NAME_RE, PROJECT_FILE, parseServerConfig, parseEnvPairs, readProjectFile } from './config';
export { pinServer, pinsChanged } from './pins';
import type { McpServerConfig, ProjectFile } from './config';

/** What a server says of a tool's behaviour (hints: facts to show, never a reason to ask less). */
export interface McpToolAnnotations {
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

export interface McpToolInfo {
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpToolAnnotations;
  /** The JSON Schema of the tool's structured result (the SDK validates `structuredContent` against it). */
  outputSchema?: Record<string, unknown>;
  /** MCP Apps: the tool's `ui://` view, and who may call it (the model, a view of its server, or both). */
  ui?: { resourceUri: string | null; visibility: ('model' | 'app')[] };
}

/** A tool's MCP Apps view as read from its server (`resources/read` of its `ui://` URI). */
export interface McpUiResource {
  uri: string;
  html: string;
  /** The origins the view declares it needs (`_meta.ui.csp`): shown to the person, never granted (docs/extensions.md). */
  csp: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[]; baseUriDomains: string[] };
  /** Device permissions the view asks for (`_meta.ui.permissions`): never granted. */
  permissions: string[];
  prefersBorder: boolean | null;
}

/** A form elicitation's schema: flat properties of primitive types (string, number, integer, boolean, enums). */
export interface McpFormSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[] | undefined;
}

/** What a server asks a person during a call (elicitation/create). */
export type McpElicitation =
  | { mode: 'form'; server: string; message: string; requestedSchema: McpFormSchema }
  | { mode: 'url'; server: string; message: string; url: string; elicitationId: string };

export interface McpElicitResult {
  [key: string]: unknown;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/** Per call: the conversation's folders (offered as roots), who answers the server's questions, progress. */
export interface McpCallOptions {
  roots?: readonly string[];
  /** The call's id in the run: its whole result is kept a while for the call's MCP Apps view (`callResult`). */
  callId?: string;
  elicit?(asked: McpElicitation): Promise<McpElicitResult>;
  onProgress?(progress: { progress: number; total?: number | undefined; message?: string | undefined }): void;
}

export interface McpHealth {
  name: string;
  status: 'connected' | 'connecting' | 'failed' | 'stopped';
  toolCount: number;
  lastError: string | null;
  stderrTail: string | null;
  restarts: number;
  nextRetryAt: number | null;
  /** The protocol revision agreed with the server (`2026-07-28`, `2025-11-25`…), while connected; not stored. */
  protocolVersion?: string | null;
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
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal, opts?: McpCallOptions): Promise<McpCallResult>;
  listResources(server: string): Promise<{ uri: string; name: string; description?: string | undefined; mimeType?: string | undefined }[]>;
  readResource(server: string, uri: string, signal: AbortSignal): Promise<McpContent[]>;
  /** Every tool a server lists, app-only ones included (MCP Apps). */
  appTools(server: string): McpToolInfo[];
  /** A tool's MCP Apps view (`text/html;profile=mcp-app`), read from its server and kept until it reconnects. */
  readUiResource(server: string, uri: string, signal: AbortSignal): Promise<McpUiResource>;
  /** The whole result of a recent call by its id (content and structuredContent), for its view; null once forgotten. */
  callResult(callId: string): McpCallResult | null;
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
