/**
 * How Deskhand's contract reads in the Agent Client Protocol's words, both ways. Pure functions (no SDK import, no
 * I/O), so the mapping is tested on its own: a tool's ACP kind and locations, the permission options an approval card
 * offers, the diff a write's preview carries, the plan a todo list becomes, the stop reason a run's end is, the
 * prompt's content blocks as the message text, and a stored transcript replayed as session updates (`session/load`).
 */
import { reviewHeadline } from '../../../shared/review-words';
import { forDisplay } from '../../../shared/untrusted-display';
import { isAbsolute, resolve } from 'node:path';
import type { MessageItem, PendingApproval, TodoView } from '../../../shared/contract';
import { fallbackTitle } from '../../../shared/tool-presentation';
import { offeredRoot } from '../../../shared/always-allow';
import { peerOfRulePattern } from '../../../shared/peers';
import type { GrantScope } from '../../../shared/rules';

// The protocol's shapes this module builds (a structural subset of @agentclientprotocol/sdk's schema types, which the
// agent module checks them against at compile time).
export type AcpToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';
export type AcpToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';
export type AcpContent = { type: 'text'; text: string };
export type AcpToolContent = { type: 'content'; content: AcpContent } | { type: 'diff'; path: string; oldText?: string | null; newText: string };
export interface AcpLocation {
  path: string;
  line?: number | null;
}
export interface AcpPermissionOption {
  optionId: string;
  name: string;
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}
export interface AcpPlanEntry {
  content: string;
  priority: 'high' | 'medium' | 'low';
  status: 'pending' | 'in_progress' | 'completed';
}
export type AcpUpdate =
  | { sessionUpdate: 'user_message_chunk' | 'agent_message_chunk'; content: AcpContent }
  | { sessionUpdate: 'tool_call'; toolCallId: string; title: string; kind: AcpToolKind; status: AcpToolStatus; rawInput?: unknown; content?: AcpToolContent[]; locations?: AcpLocation[] }
  | { sessionUpdate: 'tool_call_update'; toolCallId: string; status?: AcpToolStatus | null; content?: AcpToolContent[] | null; title?: string | null; rawOutput?: unknown }
  | { sessionUpdate: 'plan'; entries: AcpPlanEntry[] }
  | { sessionUpdate: 'available_commands_update'; availableCommands: { name: string; description: string; input?: { hint: string } }[] };

/** The options of `session/request_permission`, keyed so the answer maps back to `decideApproval` exactly. */
export const OPTION = { once: 'allow_once', always: 'allow_always', deny: 'reject_once' } as const;

/**
 * The editor's "allow always" choices, each one of Deskhand's grant scopes (issue 46): `allow_always` stays this
 * conversation (what editors that know only one such option pick), the others name the task or the folder.
 */
const ALWAYS_SCOPES: Record<string, GrantScope> = { [OPTION.always]: 'conversation', allow_always_task: 'task', allow_always_folder: 'workspace' };

/** The grant scope an "allow always" option stands for (undefined for every other option). */
export function alwaysScopeOf(optionId: string): GrantScope | undefined {
  return Object.prototype.hasOwnProperty.call(ALWAYS_SCOPES, optionId) ? ALWAYS_SCOPES[optionId] : undefined;
}

/** The most of a tool's output an update carries (the editor shows it; the full output stays in Deskhand). */
export const ACP_OUTPUT_CHARS = 20_000;

const KIND_BY_TOOL: Record<string, AcpToolKind> = {
  read_file: 'read',
  read_pdf: 'read',
  pdf_page_count: 'read',
  read_media_file: 'read',
  ls: 'read',
  stat: 'read',
  pwd: 'read',
  task_output: 'read',
  retrieve_tool_result: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  mkdir: 'edit',
  cp: 'edit',
  rm: 'delete',
  mv: 'move',
  grep: 'search',
  find: 'search',
  search_tools: 'search',
  find_skills: 'search',
  execute_command: 'execute',
  run_background_jobs: 'execute',
  web_fetch: 'fetch',
  web_search: 'fetch',
  http_request: 'fetch',
  enter_plan_mode: 'switch_mode',
  exit_plan_mode: 'switch_mode',
};

/** The ACP kind of a Deskhand tool (the editor picks an icon by it); 'other' for what has no counterpart. */
export function toolKind(tool: string): AcpToolKind {
  return KIND_BY_TOOL[tool] ?? 'other';
}

/** The files a call touches, as absolute paths (the editor follows along), from the arguments file tools take. */
export function toolLocations(args: unknown, cwd: string): AcpLocation[] {
  if (!args || typeof args !== 'object') return [];
  const a = args as Record<string, unknown>;
  const out: AcpLocation[] = [];
  for (const key of ['path', 'file_path', 'file', 'from', 'to', 'source', 'destination']) {
    const value = a[key];
    if (typeof value === 'string' && value.trim() && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      const line = typeof a.line === 'number' ? a.line : typeof a.offset === 'number' && key === 'path' ? a.offset : null;
      out.push({ path: isAbsolute(value) ? value : resolve(cwd, value), ...(line !== null ? { line } : {}) });
    }
  }
  if (Array.isArray(a.paths)) for (const p of a.paths) if (typeof p === 'string' && p.trim()) out.push({ path: isAbsolute(p) ? p : resolve(cwd, p) });
  return out;
}

/** The title an editor shows for a call: the tool's own one-line summary when it gave one, else its title. */
export function toolTitle(tool: string, summary: string | null | undefined, title?: string | null): string {
  const s = summary?.trim();
  if (s) return s.length > 200 ? `${s.slice(0, 199)}…` : s;
  return title?.trim() || fallbackTitle(tool);
}

/** What the approval card offers, in ACP's option kinds: allow once, always allow (naming the rule it saves), deny. */
export function permissionOptions(approval: Pick<PendingApproval, 'alwaysPattern'>): AcpPermissionOption[] {
  const options: AcpPermissionOption[] = [{ optionId: OPTION.once, name: 'Allow once', kind: 'allow_once' }];
  if (approval.alwaysPattern) {
    options.push({ optionId: OPTION.always, name: `Always allow ${approval.alwaysPattern} in this conversation`, kind: 'allow_always' });
    // A rule (not a workspace root, not a peer: those are this conversation's only) may also last the task or cover the folder.
    if (!offeredRoot(approval.alwaysPattern) && !peerOfRulePattern(approval.alwaysPattern)) {
      options.push({ optionId: 'allow_always_task', name: `Allow ${approval.alwaysPattern} until this task ends`, kind: 'allow_always' });
      options.push({ optionId: 'allow_always_folder', name: `Always allow ${approval.alwaysPattern} in every conversation in this folder`, kind: 'allow_always' });
    }
  }
  options.push({ optionId: OPTION.deny, name: 'Deny', kind: 'reject_once' });
  return options;
}

/**
 * The editor's answer as `decideApproval`'s decision. An option this agent never offered (a client bug, or an
 * "always" where no rule may be saved) is refused rather than guessed at.
 */
export function decisionOf(optionId: string, approval: Pick<PendingApproval, 'alwaysPattern'>): 'approve' | 'always' | 'deny' | null {
  if (optionId === OPTION.once) return 'approve';
  if (optionId === OPTION.always) return approval.alwaysPattern ? 'always' : null;
  if (alwaysScopeOf(optionId)) return approval.alwaysPattern && !offeredRoot(approval.alwaysPattern) && !peerOfRulePattern(approval.alwaysPattern) ? 'always' : null;
  if (optionId === OPTION.deny) return 'deny';
  return null;
}

/** A reason the editor sent with a denial: ACP v1 has no field for it, so clients put one in the outcome's `_meta.reason`. */
export function denialReason(meta: unknown): string | undefined {
  if (!meta || typeof meta !== 'object') return undefined;
  const reason = (meta as Record<string, unknown>).reason;
  return typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 2000) : undefined;
}

/**
 * A unified diff (the write's approval preview) as ACP diffs, one per file: each carries its hunks' old and new text
 * (context lines in both), so the editor shows exactly the change the person is asked about. Not a diff: none.
 */
export function diffsOf(preview: string | null | undefined, cwd: string): Extract<AcpToolContent, { type: 'diff' }>[] {
  if (!preview || !/^@@ /m.test(preview)) return [];
  const out: Extract<AcpToolContent, { type: 'diff' }>[] = [];
  let current: { path: string; old: string[]; next: string[]; created: boolean } | null = null;
  let inHunk = false;
  const flush = () => {
    if (current && (current.old.length || current.next.length)) {
      out.push({ type: 'diff', path: current.path, oldText: current.created ? null : current.old.join('\n'), newText: current.next.join('\n') });
    }
  };
  for (const line of preview.split('\n')) {
    const from = /^--- (?:a\/)?(.+?)(?:\t.*)?$/.exec(line);
    if (from && !inHunk) {
      flush();
      current = { path: '', old: [], next: [], created: from[1] === '/dev/null' };
      continue;
    }
    const to = /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/.exec(line);
    if (to && current && !current.path) {
      current.path = isAbsolute(to[1]!) ? to[1]! : resolve(cwd, to[1]!);
      continue;
    }
    if (line.startsWith('@@')) {
      current ??= { path: cwd, old: [], next: [], created: false };
      inHunk = true;
      if (current.old.length || current.next.length) {
        current.old.push('…');
        current.next.push('…');
      }
      continue;
    }
    if (!current || !inHunk) continue;
    if (line.startsWith('+')) current.next.push(line.slice(1));
    else if (line.startsWith('-')) current.old.push(line.slice(1));
    else if (line.startsWith(' ')) {
      current.old.push(line.slice(1));
      current.next.push(line.slice(1));
    }
    else if (line.startsWith('\\')) continue;
    else if (line === '') continue;
    else inHunk = false;
  }
  flush();
  return out.filter((d) => d.path);
}

/** Text content for a tool update, cut to what an update carries (the end kept: that is where commands say how they ended). */
export function textContent(text: string): AcpToolContent[] {
  if (!text) return [];
  const cut = text.length > ACP_OUTPUT_CHARS ? `…(${text.length - ACP_OUTPUT_CHARS} characters before this are in Deskhand)\n${text.slice(-ACP_OUTPUT_CHARS)}` : text;
  return [{ type: 'content', content: { type: 'text', text: cut } }];
}

/** A tool result's status in ACP's words. */
export function resultStatus(status: 'ok' | 'error' | 'denied' | 'interrupted' | string): AcpToolStatus {
  return status === 'ok' ? 'completed' : 'failed';
}

/** The todo list as the session's plan. */
export function planOf(todos: Pick<TodoView, 'title' | 'status' | 'priority'>[]): AcpPlanEntry[] {
  return todos.map((t) => ({ content: t.title, priority: t.priority ?? 'medium', status: t.status === 'done' ? 'completed' : t.status }));
}

/** How a run's end reads as the prompt's stop reason; failures are errors, not stop reasons (the caller throws). */
export function stopReasonOf(status: string): 'end_turn' | 'cancelled' | null {
  if (status === 'finished' || status === 'parked') return 'end_turn';
  if (status === 'aborted' || status === 'interrupted') return 'cancelled';
  return null;
}

/** A content block of the prompt as ACP sends it (text, an embedded resource, a link). */
export type PromptBlock =
  | { type: 'text'; text: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string | null } }
  | { type: 'resource_link'; uri: string; name: string }
  | { type: string; [k: string]: unknown };

/**
 * The prompt's blocks as the message Deskhand sends: text as written; an embedded text resource (a file or selection
 * the person attached in the editor) fenced with its URI; a link named. What this agent does not take (images, audio,
 * binary resources: not advertised in its prompt capabilities) is refused with a sentence, never dropped silently.
 */
export function promptText(blocks: PromptBlock[]): { text: string } | { error: string } {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'resource') {
      const r = (block as Extract<PromptBlock, { type: 'resource' }>).resource;
      if (typeof r?.text !== 'string') return { error: `Deskhand in the editor takes text only: the attached ${r?.uri ?? 'resource'} is binary. Attach it in the Deskhand app instead.` };
      parts.push(`Attached from the editor: ${r.uri}\n\`\`\`\n${r.text}\n\`\`\``);
    } else if (block.type === 'resource_link') {
      const l = block as Extract<PromptBlock, { type: 'resource_link' }>;
      parts.push(`(The person points at ${l.uri}${l.name && l.name !== l.uri ? ` "${l.name}"` : ''}.)`);
    } else return { error: `Deskhand in the editor takes text and text files only (got ${block.type}). Attach images and audio in the Deskhand app.` };
  }
  const text = parts.join('\n\n').trim();
  return text ? { text } : { error: 'The prompt is empty.' };
}

/**
 * What a lifecycle hook said (a `hook` item replayed, or a `hook.note` event live), for the person in the editor: ACP
 * has no update for a third party's words, so it is an agent message chunk set apart in parentheses and saying whose
 * it is and whether the agent read it — never a user message chunk (they are not the person's words), and a project's
 * reason without its envelope's markup, said to be untrusted.
 */
export function hookUpdate(item: { event: string; text: string; toModel: boolean }): AcpUpdate {
  const shown = forDisplay(item.text);
  const who = item.toModel
    ? `From the ${item.event} hook, which sent the agent back to work${shown.sources.length ? " (a project's hook: the agent read it as untrusted content)" : ''}`
    : `From the ${item.event} hooks, a note for you (the agent did not read it)`;
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n(${who}: ${shown.text})\n` } };
}

/** A stored transcript as the updates that show it again in the editor (`session/load`). */
export function replayOf(items: MessageItem[], cwd: string): AcpUpdate[] {
  const out: AcpUpdate[] = [];
  for (const item of items) {
    switch (item.kind) {
      case 'user':
        if (item.text) out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: item.text } });
        break;
      case 'assistant':
        if (item.text) out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: item.text } });
        break;
      case 'tool': {
        const status: AcpToolStatus = item.status === 'ok' || item.status === 'backgrounded' ? 'completed' : item.status === 'running' || item.status === 'approved' ? 'in_progress' : item.status === 'pending' || item.status === 'awaiting_approval' ? 'pending' : 'failed';
        out.push({
          sessionUpdate: 'tool_call',
          toolCallId: item.callId,
          title: toolTitle(item.tool, item.summary),
          kind: toolKind(item.tool),
          status,
          rawInput: item.args,
          content: [...diffsOf(item.preview, cwd), ...textContent(item.output ?? '')],
          locations: toolLocations(item.args, cwd),
        });
        break;
      }
      case 'error':
        out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n${item.severity === 'error' ? 'Error' : 'Note'}: ${item.text}\n` } });
        break;
      case 'compaction':
        out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\nNote: the context was compacted: ${item.dropped.length} earlier messages were replaced by a summary in what the model sees.\n` } });
        break;
      case 'review':
        out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `(${reviewHeadline(item)})${item.text ? `\n${item.text}` : ''}` } });
        break;
      case 'hook':
        out.push(hookUpdate(item));
        break;
      case 'wake':
        out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n(${item.tasks.map((t) => `${t.headline}: ${t.title}`).join('; ')})\n` } });
        break;
    }
  }
  return out;
}

/** An MCP server as `session/new` passes it (stdio, or HTTP/SSE by URL). */
export type EditorMcpServer =
  | { name: string; command: string; args: string[]; env: { name: string; value: string }[] }
  | { type: 'http' | 'sse'; name: string; url: string; headers: { name: string; value: string }[] };

/**
 * The editor's MCP server as a Deskhand server configuration: a name that fits tool names (`mcp__<server>__<tool>`),
 * the tier every call of a server nobody tiered gets (`ask`), and where it came from. The `source` makes a stdio
 * server run as a project server does (mcp/connection.ts `stdioSandbox`): in the OS sandbox, the session's folder its
 * workspace, no network. ACP does not say where the editor got the server from, and an editor's project settings (a
 * file in the repository) can name one, so it is treated as what the workspace could have written. Invalid: a
 * sentence instead.
 */
export function mcpConfigOf(server: EditorMcpServer, clientName: string, taken: ReadonlySet<string>, cwd: string): { config: Record<string, unknown> } | { error: string } {
  const base = (server.name ?? '').replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'editor';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  const common = { name, tier: 'ask', source: `${clientName}: ${server.name}` };
  if ('url' in server) {
    if (!/^https?:\/\//i.test(server.url ?? '')) return { error: `The editor's MCP server "${server.name}" has no http(s) URL.` };
    return { config: { ...common, transport: server.type === 'sse' ? 'sse' : 'http', url: server.url, ...(server.headers?.length ? { headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) } : {}) } };
  }
  if (!server.command?.trim()) return { error: `The editor's MCP server "${server.name}" has no command.` };
  const env = Object.fromEntries((server.env ?? []).filter((e) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name)).map((e) => [e.name, e.value]));
  return { config: { ...common, transport: 'stdio', command: server.command, args: server.args ?? [], cwd, ...(Object.keys(env).length ? { env } : {}) } };
}
