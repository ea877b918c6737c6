/**
 * Tool families and how they load. A new conversation's requests carry the full schemas of the default families only
 * (files, shell, tasks, todos, context, interaction, web): what most turns need. Every other family is
 * listed in the system prompt by name with one line and its tool names, and loads on demand:
 *
 * - deferred (secrets, waiting for conditions, raw HTTP, several background jobs at once, stored results, compositions, media, PDFs, scheduling, memory, plan mode, goals, subagents, workflows, coordinator,
 *   MCP, skills, custom tools): `search_tools` loads it, and so does a call of one of its tools by name — the call
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
  tasks: 'background jobs and their output',
  todos: 'the task list and work state',
  context: 'the time, the context window, stored results, finding tools',
  interaction: 'ask the person a question or for a file',
  web: 'web search, fetching pages, HTTP requests',
  secrets: 'ask the person for a secret or use a saved one (API keys, passwords) without it entering the conversation',
  http: 'HTTP requests with any method, headers and body (APIs); web_fetch reads pages',
  jobs: 'start several background commands at once (execute_command with run_in_background starts one)',
  results: 'page through a stored long tool result (loaded by itself when one is stored); compact the conversation now',
  waiting: 'wait until a condition holds (a port, a URL, a file, a log line, a command succeeding)',
  browser: 'drive a real web browser (navigate, read the page, click, type, screenshots, adopt the person\'s tab)',
  computer: 'operate desktop apps (observe the screen, pointer, keyboard, app grants)',
  compositions: 'documents, slides and pages composed from parts, published to a target',
  pdf: 'read PDFs (text, pages) and print documents to PDF',
  media: 'read and analyse images, audio and video; generate media; who is at the computer',
  schedule: 'reminders and triggers that start work later',
  memory: 'long-term memory records, lessons and the scratchpad',
  plan: 'plan mode: explore read-only, then propose a plan for approval',
  goals: 'goals and loops: work toward a goal over cycles within a budget',
  subagents: 'spawn, steer and wait for subagents; their blackboard',
  workflows: 'run a script that orchestrates subagents in phases',
  peers: "other people's agents (peers): ask one a question; in a peer's conversation, ask that peer back",
  coordinator: 'Tower coordinator mode: missions, worker agents, messages, reviews and merges',
  mcp: 'MCP servers: their tools, resources and prompts',
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
