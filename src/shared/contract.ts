/**
 * The one contract between the UI and main: every method's params and result, every event, as zod schemas.
 * From it come the renderer's API type (`DeskhandApi`, implemented by the preload bridge and by the WebSocket client),
 * the main-side handler types (`ContractHandlers`) and the request parsing both transports run (`parseRequest`).
 * Pure TypeScript + zod: no Node, no Electron, no DOM.
 */
import { z } from 'zod';
import { parseKeptSite } from './browser-sites';
import { POLICIES, RISK_TIERS } from './tools';
import { SANDBOX_MODES } from './sandbox';
import { RULE_SCOPES } from './rules';
import { RESULT_HINTS, TOOL_ICONS, type ToolPresentationView } from './tool-presentation';
import type { RunEvent } from './events';
import { memoryMethods } from './memory-contract';
import { scheduleMethod } from './schedule-contract';
import { extensionMethods } from './contract-extensions';
import { subagentMethods, subagentsChangedSchema } from './subagent-contract';
import { MAX_ATTACHMENTS } from './attachments';
import { attachmentInputSchema, attachmentViewSchema, chatMethods, clearedSchema, messageItemIdSchema, turnUsageSchema } from './chat-contract';
import { mediaMethods } from './contract-media';
import { peerMethods } from './contract-peers';
import { workflowMethods } from './contract-workflows';
import { familyNameSchema, toolsMethods } from './contract-tools';
import { EVENT_NAMES, MAX_PAYLOAD_BYTES, METHOD_NAMES, PROVIDER_NAMES, TOOL_ITEM_STATUSES } from './contract-names';

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
} from './contract-names';

// ── Ids and small values ────────────────────────────────────────────────────────────────────────────────────────────

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** Approval ids are minted by main as `apr_<uuid v4>`; anything else is forged and never looked up. */
export const approvalIdSchema = z.string().regex(new RegExp(`^apr_${UUID}$`), 'not an approval id');
export const conversationIdSchema = z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id');
export const runIdSchema = z.string().regex(/^run_[A-Za-z0-9_-]{1,80}$/, 'not a run id');
export const policySchema = z.enum(POLICIES);
export const riskSchema = z.enum(RISK_TIERS);
export const providerNameSchema = z.enum(PROVIDER_NAMES);
export const sandboxModeSchema = z.enum(SANDBOX_MODES);
/** Background task ids as minted by main (`cmd_…`, `jobs_…`, `wait_…`), or one job of a batch (`jobs_….2`). */
export const taskIdSchema = z.string().regex(/^(cmd|jobs|wait|sub)_[0-9a-f]{8}(\.\d{1,3})?$/, 'not a background task id');

const text = (max: number) => z.string().max(max);

// ── Projections the renderer renders (never raw store rows) ─────────────────────────────────────────────────────────

export const conversationSummarySchema = z.strictObject({
  id: conversationIdSchema,
  title: z.string(),
  folder: z.string(),
  policy: policySchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** running: a run of this host is working; waiting: approvals wait for the person; idle otherwise. */
  activity: z.enum(['idle', 'running', 'waiting']),
  pendingApprovals: z.number().int().nonnegative(),
  /** How this conversation's commands run: in the OS sandbox (workspace writable or read-only) or without it. */
  sandbox: sandboxModeSchema,
  /** Set when this conversation is a subagent's: its parent (the sidebar leaves it out; the tree reaches it). */
  subagentOf: z.strictObject({ conversationId: z.string(), subagentId: z.string() }).optional(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

/** A background task as the panel shows it: what it is, how it stands, and the end of its output. */
export const backgroundTaskSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['command', 'job_batch', 'wait_for', 'question', 'subagent', 'workflow']),
  title: z.string(),
  status: z.enum(['running', 'finished', 'failed', 'cancelled', 'timed_out', 'interrupted']),
  summary: z.string().nullable(),
  exitCode: z.number().nullable(),
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
  /** The last part of its output (a command's log, a wait's last check); the model pages the rest with task_output. */
  tail: z.string(),
  jobs: z.array(
    z.strictObject({
      idx: z.number(),
      command: z.string(),
      status: z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']),
      exitCode: z.number().nullable(),
      attempts: z.number(),
      note: z.string().nullable(),
    }),
  ),
});
export type BackgroundTaskView = z.infer<typeof backgroundTaskSchema>;


export const messageItemSchema = z.discriminatedUnion('kind', [
  // `from`: in a subagent's transcript, who wrote a message that is not the person's (its parent conversation's title).
  z.strictObject({ kind: z.literal('user'), id: z.string(), runId: z.string().nullable(), text: z.string(), at: z.number(), attachments: z.array(attachmentViewSchema).optional(), from: z.string().optional() }),
  z.strictObject({
    kind: z.literal('assistant'),
    id: z.string(),
    runId: z.string().nullable(),
    text: z.string(),
    at: z.number(),
    /** On the last assistant text of a finished turn: the turn's tokens and cost (chat-contract.ts). */
    usage: turnUsageSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('tool'),
    id: z.string(),
    runId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    status: z.enum(TOOL_ITEM_STATUSES),
    risk: riskSchema.nullable(),
    reasons: z.array(z.string()),
    /** The result text, cut to the first OUTPUT_PREVIEW_CHARS; `outputChars` is the full length (page with getToolOutput). */
    output: z.string().nullable(),
    outputChars: z.number().int().nonnegative(),
    durationMs: z.number().nullable(),
    approvalId: z.string().nullable(),
    /** The tool's own one-line summary of the call (its declared presentation), or null when it gives none. */
    summary: z.string().nullable(),
    at: z.number(),
    /** Who or what cleared the call and when (chat-contract.ts); absent while live. */
    cleared: clearedSchema.nullable().optional(),
    /** The approval's preview (a diff, the command) kept on the card after the answer, denied ones included. */
    preview: z.string().nullable().optional(),
  }),
  z.strictObject({ kind: z.literal('error'), id: z.string(), runId: z.string().nullable(), text: z.string(), severity: z.enum(['error', 'notice']), at: z.number() }),
  /**
   * A turn nobody typed: Deskhand continued the conversation because background work it started ended (a command, a
   * job batch, a wait_for). Stored as a user-role message for the model; shown as what it is, never as "You".
   */
  z.strictObject({
    kind: z.literal('wake'),
    id: z.string(),
    runId: z.string().nullable(),
    tasks: z.array(
      z.strictObject({
        id: z.string(),
        kind: z.enum(['command', 'job_batch', 'wait_for', 'question', 'subagent', 'workflow']),
        /** In plain words: "Background task finished", "Wait timed out"… */
        headline: z.string(),
        title: z.string(),
        /** What the model was given about it (outside the untrusted-content markup). */
        output: z.string(),
        notice: z.string().nullable(),
      }),
    ),
    at: z.number(),
  }),
]);
export type MessageItem = z.infer<typeof messageItemSchema>;
export type ToolItem = Extract<MessageItem, { kind: 'tool' }>;

export const pendingApprovalSchema = z.strictObject({
  approvalId: approvalIdSchema,
  runId: z.string(),
  conversationId: conversationIdSchema,
  conversationTitle: z.string(),
  folder: z.string(),
  callId: z.string(),
  tool: z.string(),
  /** The tool's title in plain words, as the tool declares it ("Run a command"); notifications use it too. */
  title: z.string(),
  /** The exact arguments the approval is bound to (their sha256 is checked again when it is answered). */
  args: z.unknown(),
  risk: riskSchema,
  reasons: z.array(z.string()),
  description: z.string(),
  preview: z.string().nullable(),
  /** What "Always allow" would save a rule for, or null when no rule may be saved for this call. */
  alwaysPattern: z.string().nullable(),
  /** running: the run waits in this host; parked: nobody was there to answer, approving resumes it. */
  runStatus: z.enum(['running', 'parked', 'other']),
  /**
   * The request's kind: 'approval' (approve, always, deny), or an input request answered with a value — 'secret'
   * (provideSecret), 'question' and 'file_pick' (answerRequest), or any kind a family registers (the UI falls back to
   * showing the `deskhand runs answer` command). Every kind can be denied.
   */
  kind: z.string().min(1).max(100),
  /** What an input request shows the person (the questions and options; the picker's prompt, pick and multiple). Never a secret. */
  data: z.unknown(),
  /** The saved secret this call asks for (ask_user_secret) or would use (use_saved_secret); never a value. */
  secret: z.strictObject({ name: z.string(), description: z.string(), prompt: z.string().nullable() }).nullable(),
  /** Set when a subagent asks: the request is shown in its parent's conversation (conversationId), labelled with the child. */
  subagent: z.strictObject({ id: z.string(), type: z.string(), description: z.string(), conversationId: conversationIdSchema }).nullable().optional(),
  createdAt: z.number(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/** One item of the conversation's todo list (manage_todos). */
/** How the UI shows a tool (declared by the tool; see shared/tool-presentation.ts). */
export const toolPresentationSchema = z.strictObject({
  name: z.string(),
  title: z.string(),
  icon: z.enum(TOOL_ICONS),
  result: z.enum(RESULT_HINTS),
  kind: z.enum(['builtin', 'mcp', 'custom']),
});

export const todoSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  status: z.enum(['pending', 'in_progress', 'done']),
  priority: z.enum(['low', 'medium', 'high']).nullable(),
});
export type TodoView = z.infer<typeof todoSchema>;

/** A local model server main found running (Ollama, LM Studio), offered first on the first-run panel. */
export const localModelServerSchema = z.strictObject({
  kind: z.enum(['ollama', 'lmstudio']),
  label: z.string(),
  /** The OpenAI-compatible base URL to save (…/v1). */
  baseURL: z.string(),
  models: z.array(z.string()),
});
export type LocalModelServer = z.infer<typeof localModelServerSchema>;

const baseURLSchema = z
  .string()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

export const providerSettingsSchema = z.strictObject({
  model: z.string().trim().min(1).max(200),
  baseURL: baseURLSchema.nullable(),
});

/** web_search's backend: SearXNG (self-hosted JSON API, no key), Brave Search API or Tavily; keys are vault secrets. */
export const searchBackendSchema = z.enum(['searxng', 'brave', 'tavily']);
export type SearchBackend = z.infer<typeof searchBackendSchema>;
export const searchSettingsSchema = z.strictObject({
  backend: searchBackendSchema,
  /** The endpoint's base URL (required for SearXNG; Brave and Tavily default to their public APIs). */
  url: z.string().url().nullable(),
  /** The vault secret holding the API key (`deskhand secrets set NAME`); never the key itself. */
  keySecret: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/).nullable(),
});
export type SearchSettings = z.infer<typeof searchSettingsSchema>;

/** What Settings → Web search shows: the backend, whether its key is in the vault (never the key), and what it means. */
export const webSearchViewSchema = z.strictObject({
  search: searchSettingsSchema.nullable(),
  /** Whether the backend's key secret is saved in the vault; null when the backend needs no key. */
  keySaved: z.boolean().nullable(),
  /** Whether a typed key can be saved here (the OS keyring answers). */
  vault: z.strictObject({ available: z.boolean(), message: z.string().nullable() }),
  /** In plain words: what web_search does now, or how to configure it when it cannot. */
  message: z.string(),
});
export type WebSearchView = z.infer<typeof webSearchViewSchema>;

export const urlGrantIdSchema = z.string().regex(/^urlg_[0-9a-f]{8}$/, 'not a URL grant id');
/** One URL grant as Settings lists it: the pattern and, in words, what it covers. */
export const urlGrantViewSchema = z.strictObject({
  id: urlGrantIdSchema,
  pattern: z.string(),
  createdAt: z.number(),
  /** The pattern names a private destination (loopback, LAN…): covered only at that exact host and port. */
  private: z.boolean(),
  covers: z.string(),
});
export type UrlGrantView = z.infer<typeof urlGrantViewSchema>;

/** An always-allow rule as Settings → Rules and `deskhand rules list` show it. */
export const ruleViewSchema = z.strictObject({
  id: z.string(),
  tool: z.string(),
  pattern: z.string(),
  /** The pattern in words ("`npm test` with any further arguments"). */
  covers: z.string(),
  scope: z.enum(RULE_SCOPES),
  /** Where it applies, in words ("in every conversation in /home/me/proj"). */
  where: z.string(),
  /** The conversation of a conversation rule (its title), when it still exists. */
  conversationTitle: z.string().nullable(),
  source: z.string().nullable(),
  matchCount: z.number(),
  lastMatchedAt: z.number().nullable(),
  createdAt: z.number(),
});
export type RuleView = z.infer<typeof ruleViewSchema>;
/** An app grant for computer use (Settings → App grants, `deskhand grants list`). */
export const appGrantViewSchema = z.strictObject({
  app: z.string(),
  capabilities: z.array(z.string()),
  createdAt: z.number(),
  expiresAt: z.number().nullable(),
  covers: z.string(),
});
export type AppGrantView = z.infer<typeof appGrantViewSchema>;
/** A run using the desktop now (the "Deskhand is using: <app>" banner). */
export const computerSessionSchema = z.strictObject({
  runId: z.string(),
  conversationId: z.string().nullable(),
  apps: z.array(z.string()),
  lastAction: z.string().nullable(),
});
export type ComputerSessionView = z.infer<typeof computerSessionSchema>;

export const settingsSchema = z.strictObject({
  activeProvider: providerNameSchema,
  providers: z.strictObject({
    anthropic: providerSettingsSchema,
    openai: providerSettingsSchema,
    'openai-compatible': providerSettingsSchema,
  }),
  defaultPolicy: policySchema,
  /** How a new conversation's commands run, until changed in its header (default: the workspace sandbox). */
  defaultSandbox: sandboxModeSchema.optional(),
  /** Folders offered when starting a conversation (Settings → General). */
  workspaceFolders: z.array(z.string().min(1).max(4096)).max(50).optional(),
  /** The window's colours: follow the OS (`system`, the default) or always light or dark. */
  theme: z.enum(['system', 'light', 'dark']).optional(),
  /** Days the output logs of ended background commands are kept before deletion (default 7; rows stay). */
  logRetentionDays: z.number().int().min(1).max(3650).optional(),
  search: searchSettingsSchema.nullable().optional(),
  /** Tool families loaded from a new conversation's first request (browser, computer use…; its header can change them). */
  enableFamilies: z.array(familyNameSchema).max(40).optional(),
  /** The browser family: a visible window or not, an explicit browser path, the person's own browser for adopting a tab. */
  browser: z
    .strictObject({
      headless: z.boolean().optional(),
      executable: z.string().max(4096).nullable().optional(),
      endpoint: z.string().max(200).nullable().optional(),
      /**
       * Sites whose cookies and storage survive `browser_close` (a signed-in profile the person wants kept); every
       * other site's are discarded when a browser session ends.
       */
      keepSignedIn: z
        .array(
          z.string().max(300).refine((s) => parseKeptSite(s).ok, { message: 'not a host name such as example.com' }),
        )
        .max(100)
        .optional(),
    })
    .optional(),
});
export type Settings = z.infer<typeof settingsSchema>;

const keyStatusSchema = z.strictObject({
  /** Only whether a key is there: the key itself never leaves main. */
  set: z.boolean(),
  /** `session`: typed where no OS keyring runs; held in memory until this Deskhand stops, never written anywhere. */
  source: z.enum(['keyring', 'env', 'session']).nullable(),
});

export const settingsViewSchema = z.strictObject({
  settings: settingsSchema,
  keys: z.strictObject({ anthropic: keyStatusSchema, openai: keyStatusSchema, 'openai-compatible': keyStatusSchema }),
  /** `message`: why there is no keyring, in one sentence; `detail`: the error as the keyring library gave it. */
  keyring: z.strictObject({ available: z.boolean(), message: z.string().nullable(), detail: z.string().nullable().optional() }),
  /** Provider flags the host was started with; they win over the saved settings until it restarts without them. */
  override: z.strictObject({ provider: providerNameSchema, model: z.string(), baseURL: z.string().nullable() }).nullable(),
  /** Nothing is set up yet (no saved settings, no key, no provider flags): the UI shows the first-run panel. */
  firstRun: z.boolean(),
});
export type SettingsView = z.infer<typeof settingsViewSchema>;

// ── Compositions (issue 17) ────────────────────────────────────────────────────────────────────────────────────────

export const compositionIdSchema = z.string().regex(/^cmp_[0-9a-f]{10}$/, 'not a composition id');
export const compositionKindSchema = z.enum(['html', 'svg', 'image', 'markdown']);
export const compositionSummarySchema = z.strictObject({
  id: compositionIdSchema,
  conversationId: z.string().nullable(),
  title: z.string(),
  kind: compositionKindSchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The version the person approved (publish sends exactly its bytes), or null. */
  approvedVersion: z.number().int().nullable(),
  latestVersion: z.number().int(),
});
export type CompositionSummaryView = z.infer<typeof compositionSummarySchema>;
export const compositionDetailSchema = compositionSummarySchema.extend({
  versions: z.array(
    z.strictObject({
      version: z.number().int(),
      /** The version this one revises (null for the first). */
      revises: z.number().int().nullable(),
      mime: z.string(),
      bytes: z.number().int(),
      sha256: z.string(),
      review: z.enum(['pending', 'approved', 'changes_requested']),
      createdAt: z.number(),
    }),
  ),
  comments: z.array(z.strictObject({ version: z.number().int(), kind: z.enum(['comment', 'approve', 'changes']), text: z.string(), at: z.number() })),
});
export type CompositionDetailView = z.infer<typeof compositionDetailSchema>;
const compositionVersionParams = z.strictObject({ id: compositionIdSchema, version: z.number().int().positive() });

// ── Events (main → UI) ──────────────────────────────────────────────────────────────────────────────────────────────

const usageSchema = z.strictObject({ inputTokens: z.number(), outputTokens: z.number() });
const runStatusSchema = z.enum(['running', 'parked', 'finished', 'failed', 'aborted', 'interrupted']);

export const runEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('run.started'), conversationId: z.string(), runId: z.string(), resumed: z.boolean() }),
  z.strictObject({ type: z.literal('text'), runId: z.string(), delta: z.string(), step: z.number().optional() }),
  z.strictObject({ type: z.literal('tool.call'), runId: z.string(), callId: z.string(), tool: z.string(), args: z.unknown(), summary: z.string().optional() }),
  z.strictObject({
    type: z.literal('tool.decision'),
    runId: z.string(),
    callId: z.string(),
    tool: z.string(),
    risk: riskSchema.nullable(),
    decision: z.enum(['allow', 'ask', 'deny']),
    reasons: z.array(z.string()),
  }),
  z.strictObject({
    type: z.literal('approval.requested'),
    runId: z.string(),
    conversationId: z.string(),
    approvalId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    risk: riskSchema,
    reasons: z.array(z.string()),
    description: z.string(),
    preview: z.string().nullable(),
    alwaysPattern: z.string().nullable(),
  }),
  z.strictObject({
    type: z.literal('input.requested'),
    runId: z.string(),
    conversationId: z.string(),
    requestId: z.string(),
    kind: z.string(),
    callId: z.string(),
    tool: z.string(),
    description: z.string(),
    prompt: z.string(),
    data: z.unknown(),
    schema: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    type: z.literal('state.changed'),
    conversationId: z.string(),
    slot: z.literal('todos'),
    value: z.array(
      z.strictObject({ id: z.string(), title: z.string(), status: z.enum(['pending', 'in_progress', 'done']), priority: z.enum(['low', 'medium', 'high']).optional() }),
    ),
  }),
  z.strictObject({
    type: z.literal('approval.decided'),
    runId: z.string(),
    approvalId: z.string(),
    decision: z.enum(['approved', 'denied']),
    always: z.boolean(),
    reason: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('tool.output'), runId: z.string(), callId: z.string(), stream: z.enum(['stdout', 'stderr']), chunk: z.string() }),
  z.strictObject({
    type: z.literal('tool.result'),
    runId: z.string(),
    callId: z.string(),
    tool: z.string(),
    status: z.enum(['ok', 'error', 'denied', 'interrupted']),
    output: z.string(),
    durationMs: z.number(),
    summary: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('usage'), runId: z.string(), step: z.number(), usage: usageSchema }),
  z.strictObject({ type: z.literal('run.retry'), runId: z.string(), attempt: z.number(), delayMs: z.number(), reason: z.string() }),
  z.strictObject({ type: z.literal('run.parked'), runId: z.string(), conversationId: z.string(), approvalIds: z.array(z.string()) }),
  z.strictObject({
    type: z.literal('run.finished'),
    runId: z.string(),
    conversationId: z.string(),
    status: runStatusSchema,
    error: z.string().optional(),
    usage: usageSchema,
    steps: z.number(),
  }),
]);

// The schema and the runtime's RunEvent type must describe the same events.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _runEventsMatch: Same<z.infer<typeof runEventSchema>, RunEvent> = true;
void _runEventsMatch;
const _presentationsMatch: Same<z.infer<typeof toolPresentationSchema>, ToolPresentationView> = true;
void _presentationsMatch;

// ── The contract ────────────────────────────────────────────────────────────────────────────────────────────────────

const none = z.strictObject({});
const ok = z.strictObject({ ok: z.literal(true) });

/** A conversation's open browser session as the UI shows it; `shot` is a small JPEG data URL of the page, when taken. */
export const browserSessionSchema = z.strictObject({
  tab: z.string(),
  url: z.string(),
  title: z.string(),
  tabs: z.number().int(),
  shot: z.string().nullable(),
});
export type BrowserSessionView = z.infer<typeof browserSessionSchema>;

export const contract = {
  methods: {
    getHostInfo: {
      params: none,
      result: z.strictObject({
        /** 'acp': an editor drives this host (`deskhand acp`); it has no window of its own. */
        kind: z.enum(['electron', 'web', 'acp']),
        /** Electron offers a native folder picker (pickFolder); web mode takes a typed path. */
        canPickFolder: z.boolean(),
        /** Electron answers file_pick requests with a native dialog (pickForRequest); web mode browses (browseForRequest). */
        canPickPaths: z.boolean(),
        defaultFolder: z.string(),
        version: z.string(),
        /** Whether commands can run in an OS sandbox on this machine, and what it is (or why there is none). */
        sandbox: z.strictObject({ available: z.boolean(), detail: z.string() }),
      }),
    },
    listConversations: { params: none, result: z.strictObject({ conversations: z.array(conversationSummarySchema) }) },
    createConversation: {
      params: z.strictObject({ folder: text(4096).min(1), policy: policySchema, title: text(200).optional() }),
      result: conversationSummarySchema,
    },
    renameConversation: {
      params: z.strictObject({ conversationId: conversationIdSchema, title: z.string().trim().min(1).max(200) }),
      result: conversationSummarySchema,
    },
    deleteConversation: { params: z.strictObject({ conversationId: conversationIdSchema }), result: ok },
    setPolicy: { params: z.strictObject({ conversationId: conversationIdSchema, policy: policySchema }), result: conversationSummarySchema },
    getMessages: {
      params: z.strictObject({ conversationId: conversationIdSchema }),
      result: z.strictObject({
        conversation: conversationSummarySchema,
        items: z.array(messageItemSchema),
        activeRun: z.strictObject({ runId: z.string(), status: z.enum(['running', 'parked']) }).nullable(),
        /** The conversation's tokens and cost so far (every run, superseded branches included: they were spent). */
        usage: turnUsageSchema.optional(),
        /** The steps already stored of the latest run: live text of those steps is in `items` already. */
        storedSteps: z.strictObject({ runId: z.string(), step: z.number() }).nullable().optional(),
      }),
    },
    getToolOutput: {
      params: z.strictObject({
        conversationId: conversationIdSchema,
        runId: runIdSchema,
        callId: z.string().min(1).max(200),
        offset: z.number().int().nonnegative().default(0),
        limit: z.number().int().min(1).max(200_000).default(50_000),
      }),
      result: z.strictObject({ text: z.string(), offset: z.number(), total: z.number(), nextOffset: z.number().nullable() }),
    },
    sendMessage: {
      params: z.strictObject({
        conversationId: conversationIdSchema,
        // Empty is allowed with attachments; main refuses a message with neither.
        text: z.string().trim().max(200_000),
        attachments: z.array(attachmentInputSchema).max(MAX_ATTACHMENTS).optional(),
        /** Edit and resend: the id of the user message (`m123`) this one replaces, with everything after it. */
        replaceFrom: messageItemIdSchema.optional(),
      }).refine((p) => p.text.length > 0 || (p.attachments?.length ?? 0) > 0, { message: 'The message is empty.', path: ['text'] }),
      result: z.strictObject({ runId: z.string() }),
    },
    stopRun: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ stopped: z.boolean() }) },
    /** Stops a run that is parked (waiting for approvals nobody answered): its approvals expire, open calls are not run. */
    stopParkedRun: {
      params: z.strictObject({ conversationId: conversationIdSchema, runId: runIdSchema }),
      result: z.strictObject({ stopped: z.boolean() }),
    },
    listPendingApprovals: { params: none, result: z.strictObject({ approvals: z.array(pendingApprovalSchema) }) },
    decideApproval: {
      params: z.strictObject({
        approvalId: approvalIdSchema,
        decision: z.enum(['approve', 'always', 'deny']),
        /** Where an "always" rule applies; default this conversation. */
        scope: z.enum(RULE_SCOPES).optional(),
        reason: text(2000).optional(),
      }),
      result: z.strictObject({ decision: z.enum(['approved', 'denied']), resumed: z.boolean() }),
    },
    /**
     * Answers a request for a secret (ask_user_secret) with the value the person typed. It goes to the OS keyring; it
     * is never sent back to any UI, in any event or projection.
     */
    provideSecret: {
      params: z.strictObject({ approvalId: approvalIdSchema, value: z.string().min(1, 'The secret is empty.').max(10_000) }),
      result: z.strictObject({ resumed: z.boolean() }),
    },
    /**
     * Answers an input request (a question, a file pick, any registered kind) with the JSON value its kind validates;
     * a value that does not fit comes back as a 'usage' error that says what to change. Approvals use decideApproval,
     * secrets provideSecret.
     */
    answerRequest: {
      params: z.strictObject({ requestId: approvalIdSchema, value: z.unknown() }),
      result: z.strictObject({ resumed: z.boolean() }),
    },
    /**
     * Lists one folder's entry names (never contents), only while that request is a pending file pick: the web folder
     * browser. `path` defaults to the conversation's folder. Hidden entries (dot names) come after the others.
     */
    browseForRequest: {
      params: z.strictObject({ requestId: approvalIdSchema, path: text(4096).min(1).optional() }),
      result: z.strictObject({
        path: z.string(),
        parent: z.string().nullable(),
        entries: z.array(z.strictObject({ name: z.string(), kind: z.enum(['file', 'folder']) })),
        /** More entries exist than were listed (very large folders). */
        truncated: z.boolean(),
      }),
    },
    /**
     * Answers a pending file pick with the host's native dialog (desktop only: web mode gets 'unsupported'). The paths
     * come from the dialog in main, never from the renderer. `cancelled`: the person closed the dialog; nothing was answered.
     */
    pickForRequest: {
      params: z.strictObject({ requestId: approvalIdSchema }),
      result: z.strictObject({ resumed: z.boolean(), cancelled: z.boolean() }),
    },
    /** Every registered tool's presentation (title, icon, result hint), for tool and approval cards. */
    listTools: { params: none, result: z.strictObject({ tools: z.array(toolPresentationSchema) }) },
    getTodos: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ todos: z.array(todoSchema) }) },
    /** The conversation's browser session (browser family): its current tab, or null when none is open. */
    getBrowserSession: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ session: browserSessionSchema.nullable() }) },
    /** Stop: closes the conversation's browser session (its tabs; the browser process when no conversation uses it). */
    closeBrowserSession: { params: z.strictObject({ conversationId: conversationIdSchema }), result: ok },
    getSettings: { params: none, result: settingsViewSchema },
    saveSettings: { params: settingsSchema, result: settingsViewSchema },
    setApiKey: { params: z.strictObject({ provider: providerNameSchema, key: z.string().trim().min(1).max(4096) }), result: settingsViewSchema },
    clearApiKey: { params: z.strictObject({ provider: providerNameSchema }), result: settingsViewSchema },
    /** Local model servers running on this machine (Ollama on 11434, LM Studio on 1234), probed with a short timeout. */
    detectLocalModels: { params: none, result: z.strictObject({ servers: z.array(localModelServerSchema) }) },
    /**
     * One tiny real model call with these settings. `key` is a key typed but not saved yet (it goes one way, like
     * setApiKey); without it the saved key is used. Failures come back as `ok: false` with the reason in plain words.
     */
    testProvider: {
      params: z.strictObject({
        provider: providerNameSchema,
        model: z.string().trim().min(1).max(200),
        baseURL: baseURLSchema.nullable(),
        key: z.string().trim().min(1).max(4096).optional(),
      }),
      result: z.strictObject({ ok: z.boolean(), message: z.string(), ms: z.number() }),
    },
    /** web_search's backend as Settings shows it (getWebSearch) and sets it (setWebSearch). */
    getWebSearch: { params: none, result: webSearchViewSchema },
    /**
     * Sets web_search's backend, or none. `key` is an API key typed in Settings: it goes one way, into the vault (OS
     * keyring) under `keySecret`, and is never sent back to any UI.
     */
    setWebSearch: {
      params: z.strictObject({
        backend: z.enum(['none', ...searchBackendSchema.options]),
        url: baseURLSchema.nullable().default(null),
        keySecret: searchSettingsSchema.shape.keySecret.default(null),
        key: z.string().trim().min(1, 'The API key is empty.').max(4096).optional(),
      }),
      result: webSearchViewSchema,
    },
    /** URL grants (also `deskhand grants add-url | list | revoke`): matching requests run unattended. */
    listUrlGrants: { params: none, result: z.strictObject({ grants: z.array(urlGrantViewSchema) }) },
    /** Adds a grant; a pattern that does not parse comes back as a 'usage' error that says why. */
    addUrlGrant: {
      params: z.strictObject({ pattern: z.string().trim().min(1, 'The pattern is empty.').max(2000) }),
      result: z.strictObject({ grant: urlGrantViewSchema, grants: z.array(urlGrantViewSchema) }),
    },
    revokeUrlGrant: { params: z.strictObject({ id: urlGrantIdSchema }), result: z.strictObject({ grants: z.array(urlGrantViewSchema) }) },
    /** Full-text search over message text, newest first; `snippet` marks matched words with \u0002 … \u0003. */
    searchMessages: {
      params: z.strictObject({ query: z.string().trim().min(1, 'Type something to search for.').max(200), limit: z.number().int().min(1).max(200).default(50) }),
      result: z.strictObject({
        matches: z.array(
          z.strictObject({
            conversationId: conversationIdSchema,
            conversationTitle: z.string(),
            /** The transcript item to jump to (the message's first item). */
            itemId: z.string(),
            role: z.enum(['user', 'assistant']),
            snippet: z.string(),
            at: z.number(),
          }),
        ),
      }),
    },
    /** Always-allow rules (also `deskhand rules list | rm ID`), with where they apply and how often they matched. */
    listRules: { params: none, result: z.strictObject({ rules: z.array(ruleViewSchema) }) },
    revokeRule: { params: z.strictObject({ id: z.string().regex(/^rule_[\w-]{1,80}$/, 'Not a rule id.') }), result: z.strictObject({ rules: z.array(ruleViewSchema) }) },
    /** App grants for computer use (also `deskhand grants list | revoke APP`). */
    listAppGrants: { params: none, result: z.strictObject({ grants: z.array(appGrantViewSchema) }) },
    revokeAppGrant: { params: z.strictObject({ app: z.string().trim().min(1).max(200) }), result: z.strictObject({ grants: z.array(appGrantViewSchema) }) },
    /** Whether computer use can run here (`missing`: one line why not) and the runs using the desktop now. */
    getComputerUse: { params: none, result: z.strictObject({ missing: z.string().nullable(), sessions: z.array(computerSessionSchema) }) },
    /** The kill switch: stops every computer-use session at once and the runs that hold them. */
    stopComputerUse: { params: none, result: z.strictObject({ stopped: z.array(z.string()) }) },
    /** A computer-use screenshot (a PNG under the data folder's computer/) as a data URL, for tool cards. */
    readScreenshot: { params: z.strictObject({ path: z.string().min(1).max(4096) }), result: z.strictObject({ dataUrl: z.string() }) },
    pickFolder: { params: none, result: z.strictObject({ folder: z.string().nullable() }) },
    setSandbox: { params: z.strictObject({ conversationId: conversationIdSchema, sandbox: sandboxModeSchema }), result: conversationSummarySchema },
    /** Compositions of one conversation (or all), newest first. */
    listCompositions: { params: z.strictObject({ conversationId: conversationIdSchema.optional() }), result: z.strictObject({ compositions: z.array(compositionSummarySchema) }) },
    getComposition: { params: z.strictObject({ id: compositionIdSchema }), result: compositionDetailSchema },
    /** One version's source (text kinds) or a data: URL (images), for the text and visual diffs. */
    getCompositionSource: {
      params: compositionVersionParams,
      result: z.strictObject({
        kind: compositionKindSchema,
        mime: z.string(),
        bytes: z.number().int(),
        text: z.string().nullable(),
        truncated: z.boolean(),
        dataUrl: z.string().nullable(),
      }),
    },
    /** The viewer URL for one version: a same-host path behind a short-lived ticket, served sandboxed with a strict CSP. */
    openComposition: { params: compositionVersionParams, result: z.strictObject({ url: z.string() }) },
    /** The person's review of one version; it reaches the agent as a message (runId), unless a run is busy (note). */
    reviewComposition: {
      params: compositionVersionParams.extend({ action: z.enum(['comment', 'approve', 'changes']), text: z.string().max(20_000).default('') }),
      result: z.strictObject({ composition: compositionDetailSchema, runId: z.string().nullable(), note: z.string().nullable() }),
    },
    listBackgroundTasks: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ tasks: z.array(backgroundTaskSchema) }) },
    cancelBackgroundTask: {
      params: z.strictObject({ conversationId: conversationIdSchema, taskId: taskIdSchema }),
      result: z.strictObject({ result: z.string() }),
    },
    // Memory, lessons and goals (memory-contract.ts).
    ...memoryMethods,
    /** Reminders and triggers (list, cancel, pause, resume, snooze, run now) with their fires and runs. */
    schedule: scheduleMethod,
    ...extensionMethods,
    // Subagents: the tree, steer, cancel (subagent-contract.ts).
    ...subagentMethods,
    ...chatMethods,
    ...mediaMethods,
    ...peerMethods,
    ...workflowMethods,
    // Tools on demand: /tools, family toggles, the system prompt (contract-tools.ts).
    ...toolsMethods,
  },
  events: {
    run: runEventSchema,
    conversationsChanged: z.strictObject({ conversations: z.array(conversationSummarySchema) }),
    approvalsChanged: z.strictObject({ approvals: z.array(pendingApprovalSchema) }),
    /** Main asks the UI to show one approval (a notification or the tray was clicked). */
    openApproval: z.strictObject({ approvalId: approvalIdSchema, conversationId: conversationIdSchema }),
    /** Main asks the UI to start a new conversation (tray, Ctrl/Cmd+N from the menu). */
    newConversation: none,
    /** A background task of this conversation started, ended or printed (coalesced): list them again. */
    backgroundTasksChanged: z.strictObject({ conversationId: conversationIdSchema }),
    /** The conversation's todo list changed (manage_todos). */
    todosChanged: z.strictObject({ conversationId: conversationIdSchema, todos: z.array(todoSchema) }),
    /** A composition was made, revised or reviewed: list them again. */
    compositionsChanged: z.strictObject({ conversationId: z.string().nullable() }),
    /** A conversation's browser session changed (page, tab, a new screenshot) or closed (null). */
    browserChanged: z.strictObject({ conversationId: conversationIdSchema, session: browserSessionSchema.nullable() }),
    /** Tools were added or removed (an MCP server came or went): load listTools again. */
    toolsChanged: none,
    /** Runs started or stopped using the desktop (the "Deskhand is using" banner). */
    computerChanged: z.strictObject({ sessions: z.array(computerSessionSchema) }),
    /** A subagent (in any conversation's tree) started, changed or spent: its tree lists again. */
    subagentsChanged: subagentsChangedSchema,
  },
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
