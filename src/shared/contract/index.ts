/**
 * The one contract between the UI and main: every method's params and result, every event, as zod schemas, one file
 * per area (`contract-<area>.ts`), put together here. From it come the renderer's
 * API type (`DeskhandApi`, implemented by the preload bridge and by the WebSocket client), the main-side handler types
 * (`ContractHandlers`) and the request parsing both transports run (`parseRequest`). Pure TypeScript + zod: no Node,
 * no Electron, no DOM. A new area's schemas go in a file of their own, its methods spread into `contract.methods`.
 */
import type { z } from 'zod';
import { memoryMethods } from './memory';
import { scheduleMethod } from './schedule';
import { extensionMethods } from './extensions';
import { subagentMethods } from './subagents';
import { chatMethods } from './chat';
import { mediaMethods } from './media';
import { mcpAppMethods } from './mcp-apps';
import { peerMethods } from './peers';
import { deviceMethods } from './devices';
import { folderMethods } from './folders';
import { workflowMethods } from './workflows';
import { toolsMethods } from './tools';
import { usageMethods } from './usage';
import { conversationMethods } from './conversations';
import { requestMethods } from './requests';
import { settingsMethods } from './settings';
import { computerMethods } from './computer';
import { compositionMethods } from './compositions';
import { taskMethods } from './tasks';
import { browserMethods } from './browser';
import { changeMethods } from './changes';
import { contractEvents, type Same } from './events';
import { EVENT_NAMES, MAX_PAYLOAD_BYTES, METHOD_NAMES } from './names';

export {
  EVENT_NAMES,
  IPC_CALL_CHANNEL,
  IPC_EVENT_CHANNEL,
  MAX_PAYLOAD_BYTES,
  METHOD_NAMES,
  OUTPUT_PREVIEW_CHARS,
  PROVIDER_NAMES,
  TOOL_ITEM_STATUSES,
  type ProviderName,
  type ToolItemStatus,
} from './names';
export { approvalIdSchema, conversationIdSchema, policySchema, providerNameSchema, riskSchema, runIdSchema, sandboxModeSchema, taskIdSchema } from './ids';
export * from './conversations';
export * from './requests';
export * from './settings';
export * from './computer';
export * from './compositions';
export * from './tasks';
export * from './browser';
export * from './folders';
export * from './changes';
export { runEventSchema } from './events';
export { toolPresentationSchema } from './tools';

export const contract = {
  methods: {
    ...conversationMethods,
    ...requestMethods,
    ...settingsMethods,
    ...computerMethods,
    ...compositionMethods,
    ...taskMethods,
    ...browserMethods,
    // Memory, lessons and goals (contract-memory.ts).
    ...memoryMethods,
    /** Reminders and triggers (list, cancel, pause, resume, snooze, run now) with their fires and runs. */
    schedule: scheduleMethod,
    ...extensionMethods,
    // Subagents: the tree, steer, cancel (contract-subagents.ts).
    ...subagentMethods,
    ...chatMethods,
    ...mediaMethods,
    // MCP Apps: a tool call's view and what it asks of Deskhand (contract-mcp-apps.ts).
    ...mcpAppMethods,
    // Peers (A2A): Settings → Peers (contract-peers.ts).
    ...peerMethods,
    // Paired devices: Settings → Devices (contract-devices.ts).
    ...deviceMethods,
    // The web New-conversation dialog's folder browser (contract-folders.ts).
    ...folderMethods,
    ...workflowMethods,
    // Tools on demand: /tools, family toggles, the system prompt (contract-tools.ts).
    ...toolsMethods,
    // The change ledger: each turn's changes, diffs, rewind and redo (contract-changes.ts).
    ...changeMethods,
    // The usage ledger, budgets and budget holds (contract-usage.ts).
    ...usageMethods,
  },
  events: contractEvents,
} as const;

type Methods = typeof contract.methods;
type Events = typeof contract.events;
export type MethodName = keyof Methods;
export type EventName = keyof Events;
/** What a caller passes (defaults may be left out). */
export type MethodParams<M extends MethodName> = z.input<Methods[M]['params']>;
/** What a handler receives: parsed, defaults filled in. */
export type ParsedParams<M extends MethodName> = z.output<Methods[M]['params']>;
export type MethodResult<M extends MethodName> = z.output<Methods[M]['result']>;
export type EventPayload<E extends EventName> = z.output<Events[E]>;
export type ContractEvent = { [E in EventName]: { event: E; payload: EventPayload<E> } }[EventName];

// The name lists (used by the preload, which must not bundle zod) and the schemas must agree exactly.
const _methodsMatch: Same<MethodName, (typeof METHOD_NAMES)[number]> = true;
const _eventsMatch: Same<EventName, (typeof EVENT_NAMES)[number]> = true;
void _methodsMatch;
void _eventsMatch;

/** The API the renderer calls: `window.deskhand` in Electron, the WebSocket client in web mode. Named methods only. */
export type DeskhandApi = { [M in MethodName]: (params: MethodParams<M>) => Promise<MethodResult<M>> } & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/** What main implements, once, for every transport. */
export type ContractHandlers = { [M in MethodName]: (params: ParsedParams<M>) => Promise<MethodResult<M>> };

// ── Request parsing, shared by both transports ──────────────────────────────────────────────────────────────────────

export type ContractErrorCode = 'unknown_method' | 'too_large' | 'invalid_params' | 'not_found' | 'conflict' | 'usage' | 'unsupported' | 'internal';

export interface ContractError {
  code: ContractErrorCode;
  message: string;
}

export type Reply<T = unknown> = { ok: true; result: T } | { ok: false; error: ContractError };

export type ParsedRequest = { ok: true; method: MethodName; params: unknown } | { ok: false; error: ContractError };

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(contract.methods, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(contract.events, value);
}

/**
 * Checks one request: known method (own property only), size within MAX_PAYLOAD_BYTES, params valid for the method's
 * schema. `bytes` is the request's serialized size as received (the transport measures it).
 */
export function parseRequest(method: unknown, params: unknown, bytes: number): ParsedRequest {
  if (bytes > MAX_PAYLOAD_BYTES) {
    return { ok: false, error: { code: 'too_large', message: `The request is ${bytes} bytes; the limit is ${MAX_PAYLOAD_BYTES}.` } };
  }
  if (!isMethodName(method)) {
    const shown = typeof method === 'string' ? JSON.stringify(method.slice(0, 80)) : typeof method;
    return { ok: false, error: { code: 'unknown_method', message: `Unknown method ${shown}.` } };
  }
  const parsed = contract.methods[method].params.safeParse(params ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join('.') : 'params'}: ${i.message}`)
      .join('; ');
    return { ok: false, error: { code: 'invalid_params', message: `Invalid params for ${method}: ${issues}.` } };
  }
  return { ok: true, method, params: parsed.data };
}
