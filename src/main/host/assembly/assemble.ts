/**
 * The one place every tool family is assembled: each family's factory gets the service implementations it needs
 * (as interfaces), and its tools and input kinds go into the live registry. A new family is added here.
 */
import { pluginFolders } from '../../services/plugins';
import type { InputKind } from '../../runtime/loop/input-kinds';
import { lazy, ToolRegistry } from '../../runtime/registry';
import { DecisionBook } from '../../runtime/decision/decision-book';
import { GuardedContentReader, type ContentReader } from '../../runtime/context/content-reader';
import type { ToolDefinition } from '../../runtime/tool';
import { DEFAULT_FAMILIES, OFF_FAMILIES } from '../../runtime/prompt/tool-families';
import type { SecretRedactor } from '../../runtime/context/redaction';
import type { SandboxService } from '../../services/sandbox';
import type { HttpService } from '../../services/http/index';
import type { SearchSettings } from '../../../shared/contract';
import type { TaskService } from '../../services/tasks';
import type { SecretSaver } from '../../services/vault';
import { createCompositionFamily } from '../../tools/compositions';
import type { CompositionService, Publisher } from '../../services/compositions/index';
import type { PdfPrinter, PdfReader } from '../../services/pdf/index';
import type { BrowserService } from '../../services/browser/index';
import { createBrowserFamily } from '../../tools/browser';
import { createContextFamily } from '../../tools/context';
import { createMediaFamily } from '../../tools/media';
import type { AvTools, Companion, MediaService } from '../../services/media/index';
import { writeChecked } from '../../tools/compositions/write-out';
import type { PresenceService } from '../../services/presence/index';
import { createFileFamily } from '../../tools/files';
import { createInteractionFamily } from '../../tools/interaction';
import { createSecretFamily } from '../../tools/secrets';
import { createPeerFamily } from '../../tools/peers';
import type { PeerCaller, PeerClarifier } from '../../services/peers/index';
import { createShellFamily } from '../../tools/shell';
import { createTaskFamily } from '../../tools/tasks';
import { createTodoFamily } from '../../tools/todos';
import { createWebFamily } from '../../tools/web';
import type { ContextSource } from '../../runtime/core';
import type { MemoryService } from '../../services/memory';
import type { EvidenceSource, GoalService } from '../../services/goals';
import { createMemoryFamily, type QuoteCheck } from '../../tools/memory';
import { createPlanFamily } from '../../tools/plan';
import { createGoalFamily } from '../../tools/goals';
import { createScheduleFamily } from '../../tools/schedule';
import type { Schedules } from '../../services/scheduler';
import { buildCustomTools, createExtensionsFamily, readCustomTools, type CommandRunner, type CustomToolConfig } from '../../tools/extensions';
import type { McpService } from '../../services/mcp';
import { join } from 'node:path';
import { createSubagentFamily } from '../../tools/subagents';
import type { Subagents } from '../../services/subagents/index';
import type { Compactor } from '../../tools/context';
import { createComputerFamily } from '../../tools/computer';
import type { ComputerUse } from '../../services/computer/index';
import { createWorkflowFamily } from '../../tools/workflows';
import type { Workflows } from '../../services/workflows/index';
import { createTowerFamily } from '../../tools/tower';
import type { Tower } from '../../services/tower/index';

export interface HostServices {
  dataDir: string;
  /** The guarded reader for files read because of workspace content (default: one over `dataDir`). */
  reader?: ContentReader;
  tasks: TaskService;
  sandbox: SandboxService;
  vault: SecretSaver | null;
  redactor: Pick<SecretRedactor, 'addSecret' | 'matches'>;
  /** The pinned HTTP client of the web family. */
  http: HttpService;
  urlGrants: () => readonly string[];
  searchSettings: () => SearchSettings | null;
  /** Vault values for search API keys (null: no vault). */
  secretValues: { get(name: string): Promise<string | null> } | null;
  webFetchTimeoutMs?: number;
  /** Memory, plan mode and goals (absent: those families are not assembled). */
  memory?: { memory: MemoryService; goals: GoalService; quotes: QuoteCheck; evidence: EvidenceSource; folderOf(conversationId: string): string };
  /** Agent profiles' own custom tools, and which profile a conversation has (absent: none). */
  profileCustomTools?: { tools: readonly { profile: string; tools: readonly CustomToolConfig[] }[]; profileOf(conversationId: string): string | null };
  /** Reminders and triggers (absent: the scheduling family is not offered). */
  schedules?: Schedules;
  /** MCP servers (extensions family); null: none. */
  mcp?: McpService | null;
  /** More MCP tools than this are deferred behind search_tools. */
  mcpDeferAbove?: number;
  /** Compositions and PDFs (issue 17). */
  compositions?: { store: CompositionService; publisher: Publisher; printer: PdfPrinter; reader: PdfReader; media: MediaService; av?: AvTools; presence?: PresenceService; companion?: Companion };
  /** The app's browser (browser family); absent: no browser tools. */
  browser?: BrowserService | null;
  /** The person's own browser for browser_adopt_tab (Settings → Browser). */
  browserEndpoint?: () => string | undefined;
  /** Subagents (spawn, map, steer, blackboard) and the runtime's compaction for summarize_context. */
  subagents?: Subagents;
  compactor?: Compactor;
  /** Computer use: the operator for this desktop behind the session service. */
  computer?: ComputerUse;
  /** Workflows (scripts orchestrating subagents in phases); absent: no workflow tool. */
  workflows?: Workflows;
  /** Coordinator mode (Tower); absent: no tower tools. */
  tower?: Tower;
  /** Peers over Agent2Agent (ask_peer, request_clarification); absent: no peer tools. */
  peers?: { caller: PeerCaller; clarifier: PeerClarifier };
}

export interface Assembly {
  registry: ToolRegistry;
  /** The inspectors and holds every call's decision goes through (the families' holds registered: plan mode). */
  decisions: DecisionBook;
  inputKinds: InputKind[];
  /** Blocks families add to each turn's system prompt. */
  contextSources: ContextSource[];
}

/**
 * A factory's tools as loading families: a tool that declares `facts.loadsWith` goes to that (deferred) family, the
 * rest stay in `family`. Rarely needed tools of a default family (tool-families.ts) wait to be loaded like any other.
 */
function split(family: string, tools: readonly ToolDefinition[]): { family: string; tools: readonly ToolDefinition[] }[] {
  const groups = new Map<string, ToolDefinition[]>([[family, []]]);
  for (const t of tools) {
    const f = t.facts?.loadsWith ?? family;
    groups.set(f, [...(groups.get(f) ?? []), t]);
  }
  return [...groups].map(([f, ts]) => ({ family: f, tools: ts }));
}

export function assembleTools(services: HostServices, registry = new ToolRegistry()): Assembly {
  const decisions = new DecisionBook(registry);
  const reader = services.reader ?? new GuardedContentReader({ dataDir: services.dataDir });
  const shell = createShellFamily({ tasks: services.tasks, sandbox: services.sandbox, dataDir: services.dataDir });
  const secrets = createSecretFamily({ vault: services.vault, learn: (name, value) => services.redactor.addSecret(name, value) });
  const interaction = createInteractionFamily({ tasks: services.tasks });
  const web = createWebFamily({
    http: services.http,
    urlGrants: services.urlGrants,
    search: services.searchSettings,
    keys: services.secretValues ? { get: (name) => services.secretValues!.get(name), learn: (name, value) => services.redactor.addSecret(name, value) } : null,
    ...(services.webFetchTimeoutMs ? { fetchTimeoutMs: services.webFetchTimeoutMs } : {}),
    ...(services.compositions ? { pdf: services.compositions.reader } : {}),
  });
  const c = services.compositions;
  const families: { family: string; tools: readonly ToolDefinition[] }[] = [
    ...split('files', createFileFamily({ dataDir: services.dataDir, secrets: services.redactor }).tools),
    ...split('shell', shell.tools),
    ...split('tasks', createTaskFamily({ tasks: services.tasks, commands: shell.commands, dataDir: services.dataDir }).tools),
    ...split('context', createContextFamily({ catalog: registry, dataDir: services.dataDir, compactor: services.compactor ?? null, budget: workBudget(services) }).tools),
    ...(services.subagents ? [{ family: 'subagents', tools: createSubagentFamily({ subagents: services.subagents }).tools }] : []),
    ...split('todos', createTodoFamily().tools),
    ...split('interaction', interaction.tools),
    { family: 'secrets', tools: secrets.tools },
    ...split('web', web.tools),
  ];
  if (c) {
    // PDFs are their own family for loading (read_pdf, pdf_page_count, create_pdf), built with the compositions.
    const made = createCompositionFamily({ compositions: c.store, publisher: c.publisher, printer: c.printer, reader: c.reader, net: web.net }).tools;
    families.push(...split('compositions', made));
    families.push({ family: 'media', tools: createMediaFamily({ media: c.media, ...(c.av ? { av: c.av } : {}), ...(c.presence ? { presence: c.presence } : {}), ...(c.companion ? { companion: { model: c.companion, dataDir: services.dataDir, write: writeChecked } } : {}) }).tools });
  }
  if (services.schedules) families.push({ family: 'schedule', tools: createScheduleFamily({ schedules: services.schedules }).tools });
  // Extensions: MCP tools arrive in the registry as servers connect; skills; custom tools from custom-tools.json.
  const custom = readCustomTools(services.dataDir);
  if (custom.error) process.stderr.write(`deskhand: custom tools not loaded: ${custom.error}\n`);
  const extensions = createExtensionsFamily({
    mcp: services.mcp ?? null,
    registry,
    userSkillsDir: join(services.dataDir, 'skills'),
    pluginSkillDirs: () => pluginFolders(services.dataDir, 'skills').map((f) => f.dir),
    reader,
    customTools: custom.tools,
    commands: shell.commands,
    tasks: services.tasks,
    ...(services.mcpDeferAbove !== undefined ? { deferAbove: services.mcpDeferAbove } : {}),
  });
  families.push(
    ...split('skills', extensions.tools.filter((t) => t.kind !== 'custom')),
    { family: 'custom', tools: extensions.tools.filter((t) => t.kind === 'custom') },
  );
  // Browser family: one Chromium per app, a session per conversation.
  const browser = services.browser
    ? createBrowserFamily({
        browser: services.browser,
        dataDir: services.dataDir,
        urlGrants: services.urlGrants,
        endpoint: services.browserEndpoint ?? (() => undefined),
        resolve: (host) => services.http.resolve(host),
      })
    : null;
  if (browser) families.push({ family: 'browser', tools: browser.tools });
  const computer = services.computer ? createComputerFamily({ computer: services.computer }) : null;
  if (computer) families.push({ family: 'computer', tools: computer.tools });
  if (services.workflows) families.push({ family: 'workflows', tools: createWorkflowFamily({ workflows: services.workflows }).tools });
  if (services.peers) families.push({ family: 'peers', tools: createPeerFamily(services.peers).tools });
  if (services.tower) families.push({ family: 'coordinator', tools: createTowerFamily({ tower: services.tower, commands: shell.commands }).tools });
  for (const family of families) registry.add(family.tools, { family: family.family });
  addProfileCustomTools(registry, services, shell.commands);
  // Only the default families load by themselves; the rest wait for search_tools, a call, or being enabled.
  registry.loadOnDemand({ defaults: new Set([...DEFAULT_FAMILIES, 'core']), off: new Set(OFF_FAMILIES) }); // `core`: tools added without a family
  const inputKinds = [...secrets.inputKinds, ...interaction.inputKinds, ...extensions.inputKinds, ...(browser?.inputKinds ?? []), ...(computer?.inputKinds ?? [])];
  const contextSources: ContextSource[] = [];
  // Memory, plan mode, goals and loops.
  if (services.memory) {
    const m = services.memory;
    const memory = createMemoryFamily({ memory: m.memory, quotes: m.quotes, folderOf: m.folderOf });
    const plan = createPlanFamily(reader);
    const goals = createGoalFamily({ goals: m.goals, evidence: m.evidence, ...(services.subagents ? { isSubagent: (id: string) => services.subagents!.byConversation(id) !== undefined } : {}) });
    registry.add(memory.tools, { family: 'memory' });
    registry.add(plan.tools, { family: 'plan' });
    registry.add(goals.tools, { family: 'goals' });
    registry.addFilter('goals', goals.filter);
    inputKinds.push(...plan.inputKinds, ...goals.inputKinds);
    contextSources.push(...plan.contextSources, ...goals.contextSources, ...memory.contextSources);
  }
  return { registry, decisions, inputKinds, contextSources };
}

/**
 * get_time's workMinutesLeft: the tighter of a subagent's time limit and the active goal's time budget (either may be
 * absent); null when neither applies.
 */
function workBudget(services: { subagents?: Subagents; memory?: { goals: GoalService } }): ((conversationId: string) => number | null) | null {
  const { subagents, memory } = services;
  if (!subagents && !memory) return null;
  return (id) => {
    const left = [subagents?.workMinutesLeft(id) ?? null, memory?.goals.minutesLeft(id) ?? null].filter((v): v is number => v !== null);
    return left.length ? Math.min(...left) : null;
  };
}

/**
 * Each agent profile's own custom tools (Spec I `customTools`), read at launch like custom-tools.json: registered in
 * the custom family and offered only in that profile's conversations. A name another tool already has is skipped,
 * with the reason on stderr (the profile's conversations keep the other tool).
 */
function addProfileCustomTools(registry: ToolRegistry, services: HostServices, commands: CommandRunner): void {
  const owned = services.profileCustomTools;
  if (!owned?.tools.length) return;
  const owner = new Map<string, string>();
  for (const { profile, tools } of owned.tools) {
    const fresh = tools.filter((t) => {
      if (registry.lookup(t.name) || owner.has(t.name)) {
        process.stderr.write(`deskhand: custom tool ${t.name} of the agent profile "${profile}" not loaded: another tool has that name\n`);
        return false;
      }
      owner.set(t.name, profile);
      return true;
    });
    registry.add(buildCustomTools(fresh, { commands, tasks: services.tasks }), { family: 'custom' });
  }
  registry.addFilter('profile-custom-tools', (turn) => {
    const mine = lazy(() => owned.profileOf(turn.conversationId));
    return (tool) => {
      const of = owner.get(tool.name);
      return of === undefined || of === mine() ? null : `it is a custom tool of the agent profile "${of}"`;
    };
  });
}
