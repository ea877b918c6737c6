/**
 * Tool families and how they load. A new conversation's requests carry the full schemas of the default families only
 * (files, shell, tasks, todos, context, interaction, web): what most turns need. Every other family is
 * listed in the system prompt by name with one line and its tool names, and loads on demand:
 *
 * - deferred (rarely needed tools of the default families — folder and file operations, background-job management,
 *   stored results, the context window's use, the work state, file picks — and secrets, waiting for conditions, raw
 *   HTTP, compositions, media, PDFs, scheduling, memory, plan mode, goals, subagents, workflows, coordinator, MCP,
 *   skills, custom tools): `search_tools` loads it, and so does a call of one of its tools by name — the call
 *   runs when its arguments are valid (they are parsed strictly, so a guess at the arguments is refused with the
 *   valid names), and the family's schemas are in the next request either way;
 * - off (browser, computer use): only `search_tools` or enabling the family (per conversation, per agent profile,
 *   `--enable browser,computer`) loads it; a call by name before that is refused with what to do.
 *
 * Loaded families stay loaded for the conversation (its revealed tools are kept in its state).
 */

export const DEFAULT_FAMILIES = ['files', 'shell', 'tasks', 'todos', 'context', 'interaction', 'web'] as const;
export const OFF_FAMILIES = ['browser', 'computer'] as const;

/** One line per family, for the system prompt's list of families not loaded yet. */
export const FAMILY_SUMMARIES: Readonly<Record<string, string>> = {
  files: 'read, search, write and edit files',
  shell: 'run commands in the sandbox',
  tasks: 'background tasks\' output',
  todos: 'the todo list',
  context: 'the time and work budget left; finding and loading tools',
  interaction: 'ask the person a question',
  web: 'web search and fetching pages',
  fileops: 'make folders, copy, move, remove, stat; the working directory',
  jobs: 'start several background commands at once; list, wait for, cancel background tasks',
  results: 'page through a stored long result (loads by itself); compact the conversation now',
  session: 'how full the context window is',
  workstate: 'read the todo list; note the work state so it survives compaction',
  pick: 'ask the person to pick files or a folder',
  secrets: 'ask for a secret or use a saved one (API keys, passwords) without it entering the conversation',
  http: 'HTTP requests with any method, headers and body (APIs)',
  waiting: 'wait until a port, URL, file, log line or command is ready',
  browser: 'drive a real web browser (navigate, read, click, type, screenshots, adopt the person\'s tab)',
  computer: 'operate desktop apps (screen, pointer, keyboard, app grants)',
  compositions: 'documents, slides and pages composed from parts, published',
  pdf: 'read PDFs; print documents to PDF',
  media: 'read and analyse images, audio and video; generate media; who is at the computer',
  schedule: 'reminders and triggers that start work later',
  memory: 'long-term memory, lessons, the scratchpad',
  plan: 'plan mode: explore read-only, then propose a plan',
  goals: 'work toward a goal over cycles within a budget',
  subagents: 'spawn, steer and wait for subagents; their blackboard',
  workflows: 'a script that orchestrates subagents in phases',
  peers: "other people's agents: ask one a question, or ask back",
  coordinator: 'Tower coordinator mode: missions, workers, messages, reviews, merges',
  mcp: 'MCP servers: tools, resources, prompts',
  skills: 'find and load skills (instructions packaged as folders)',
  custom: 'custom tools from the agent configuration',
};

export type LoadState = 'loaded' | 'deferred' | 'off';

/** The conversation state slot holding the families enabled for the conversation. */
export const ENABLED_SLOT = 'enabled_families';

/** The families a conversation enabled (its state slot), tolerating anything malformed. */
export function enabledFamiliesOf(slots: Readonly<Record<string, unknown>> | undefined): string[] {
  const v = slots?.[ENABLED_SLOT];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Parses `browser,computer` (the CLI's `--enable`); unknown names are an error naming the families. */
export function parseFamilies(text: string): string[] {
  const names = text.split(/[\s,]+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
  const alias: Record<string, string> = { 'computer-use': 'computer', computer_use: 'computer', tower: 'coordinator', pdfs: 'pdf', scheduling: 'schedule' };
  const out: string[] = [];
  for (const raw of names) {
    const name = alias[raw] ?? raw;
    if (!(name in FAMILY_SUMMARIES)) throw new Error(`unknown tool family "${raw}"; families: ${Object.keys(FAMILY_SUMMARIES).join(', ')}`);
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
