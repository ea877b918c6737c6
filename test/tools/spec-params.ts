/**
 * Every catalog tool's parameters (TOOLS.md's 93, unified from Spec I and Spec II), derived from the specs: each key is
 * `name`, `?` when optional, and its type (`enum:a|b` lists the values); each value says where it comes from — `I`,
 * `II` or `I+II` where a spec names it, `D: reason` where it is Deskhand's own or a deliberate deviation. `missing`
 * lists parameters a spec asks for that the schema does not have yet (the test fails once one appears: move it into
 * `params`); `notTaken` lists spec parameters Deskhand deliberately does not offer, with the reason. `pending` on a
 * key says another branch of issue 33 changes that parameter (its type or values): update the key when it lands.
 * Spec I names few parameters; where it names none, the tool's own parameters are Deskhand's (`D:`), chosen to match
 * the names Spec II uses elsewhere (snake_case, `id`, `path`, `timeout_ms`).
 */
export type Origin = 'I' | 'II' | 'I+II' | `D: ${string}`;

export interface SpecRow {
  params: Record<string, Origin>;
  missing?: Record<string, string>;
  notTaken?: Record<string, string>;
  pending?: Record<string, string>;
}

const SNAKE = 'D: Spec I names it in camelCase; snake_case like every other parameter of the catalog';
const SANDBOX = 'D: commands run in the OS sandbox; leaving it (network, outside the workspace) is asked per call and always asks a person';
const TAB = 'D: Spec I opens tabs by name through browser_navigate; the other page tools name the tab they read';
const APP = 'D: Spec I acts on a granted app; Deskhand names it by its accessibility name, as computer_apps lists it';
const NONE = {} as const;

export const SPEC_PARAMS: Record<string, SpecRow> = {
  // ── Files ───────────────────────────────────────────────────────────────────────────────────────────────────
  read_file: {
    params: { 'path:string': 'II', 'line_offset?:integer': 'II', 'n_lines?:integer': 'II', 'since_byte?:integer': SNAKE, 'inode?:integer': 'D: the inode a since_byte read returned, passed back so a rotated file is noticed' },
    notTaken: { startLine: 'Spec II line_offset/n_lines (negative offsets count from the end) replace Spec I startLine/endLine', endLine: 'as startLine' },
  },
  write_file: { params: { 'path:string': 'I+II', 'content:string': 'I+II', 'mode?:enum:overwrite|append': 'II' } },
  edit_file: { params: { 'path:string': 'I+II', 'old_string:string': 'II', 'new_string:string': 'II', 'replace_all?:boolean': 'II', 'snapshot?:string': 'I' } },
  ls: { params: { 'path?:string': 'I', 'recursive?:boolean': 'I', 'all?:boolean': 'I', 'pattern?:string': 'I', 'limit?:integer': 'I' } },
  stat: { params: { 'path:string': 'I' } },
  find: {
    params: { 'pattern:string': 'I+II', 'regex?:boolean': 'I', 'path?:string': 'II', 'type?:enum:file|directory': 'I', 'include_ignored?:boolean': 'II' },
  },
  grep: {
    params: {
      'pattern:string': 'II', 'path?:string': 'II', 'glob?:string': 'II', 'type?:string': 'II', 'output_mode?:enum:files_with_matches|content|count_matches': 'II',
      '-A?:integer': 'II', '-B?:integer': 'II', '-C?:integer': 'II', '-i?:boolean': 'II', '-n?:boolean': 'II', 'multiline?:boolean': 'II',
      'include_ignored?:boolean': 'II', 'offset?:integer': 'II', 'head_limit?:integer': 'II',
    },
  },
  mkdir: { params: { 'path:string': 'I', 'parents?:boolean': 'I' } },
  cp: { params: { 'source:string': 'I', 'destination:string': 'I', 'force?:boolean': 'I' } },
  mv: { params: { 'source:string': 'I', 'destination:string': 'I', 'force?:boolean': 'I' } },
  rm: { params: { 'path:string': 'I', 'recursive?:boolean': 'D: a folder is removed only when asked (Spec I: "a file or directory")' } },
  pwd: { params: NONE },
  cd: { params: { 'path:string': 'I' } },
  read_pdf: {
    params: { 'path?:string': 'I', 'url?:string': 'I', 'pages?:string': 'I', 'password?:string': 'I' },
  },
  pdf_page_count: {
    params: { 'path?:string': 'I', 'url?:string': 'I', 'password?:string': 'I' },
  },
  read_media_file: {
    params: { 'path:string': 'II', 'region?:object': 'II', 'full_resolution?:boolean': 'II', 'frames?:integer': 'D: how many frames of a video are sampled (no provider takes video natively)' },
  },
  who_is_here: { params: { 'path?:string': 'I' } },
  // ── Shell ───────────────────────────────────────────────────────────────────────────────────────────────────
  execute_command: {
    params: {
      'command:string': 'I+II', 'cwd?:string': 'II', 'timeout?:integer': 'II', 'run_in_background?:boolean': 'II', 'description?:string': 'II',
      'disable_timeout?:boolean': 'II', 'kill_on_timeout?:boolean': 'D: Spec II bash_auto_background_on_timeout is configuration; Deskhand offers it per call',
      'network?:boolean': SANDBOX, 'outside_sandbox?:boolean': SANDBOX,
    },
  },
  wait_for: {
    params: {
      'command:string': 'I', 'cwd?:string': 'D: as execute_command', 'interval_ms?:integer': 'I', 'timeout_ms?:integer': 'I', 'description?:string': 'D: shown with the wait (Spec II description of background tasks)',
      'network?:boolean': SANDBOX, 'outside_sandbox?:boolean': SANDBOX,
    },
  },
  cancel_wait_for: { params: { 'id:string': 'I' } },
  // ── Background tasks ────────────────────────────────────────────────────────────────────────────────────────
  run_background_jobs: {
    params: {
      'jobs:array': 'I', 'concurrency?:integer': 'I', 'backoff_ms?:integer': 'I', 'description?:string': 'II',
      'network?:boolean': SANDBOX, 'outside_sandbox?:boolean': SANDBOX,
    },
  },
  list_background_jobs: { params: { 'active_only?:boolean': 'II', 'limit?:integer': 'II' } },
  cancel_background_jobs: {
    params: { 'ids:array': 'D: Spec I cancels a batch by id, Spec II TaskStop one task_id; a list covers both', 'reason?:string': 'II' },
    notTaken: { task_id: 'ids (a list) instead' },
  },
  task_output: {
    params: { 'id:string': 'D: Spec II task_id; `id` like every other tool that takes one task', 'offset?:integer': 'D: byte paging of the saved output (Spec II: "use Read", but the log lies in the data dir the path guard protects)' },
    notTaken: { task_id: 'named id, as every tool taking one task' },
  },
  wait_tasks: {
    params: { 'ids?:array': 'D: Spec II WaitFor takes one task_id; several (the first to end is reported) is what a model running parallel tasks wants', 'timeout:integer': 'II' },
    notTaken: { task_id: 'ids, a list (see above)' },
  },
  // ── Web ─────────────────────────────────────────────────────────────────────────────────────────────────────
  web_search: {
    params: {
      'query:string': 'I+II', 'max_results?:integer': 'D: how many results', 'site?:string': 'D: one site only', 'recency?:enum:day|week|month|year': 'D: freshness (Spec II Brave tools)',
      'kind?:enum:web|news|images|videos': 'D: Spec II Brave web, news, image and video search in one tool', 'country?:string': 'D: Spec II Brave country', 'language?:string': 'D: Spec II Brave search_lang',
    },
    notTaken: { BraveNewsSearch: 'Spec II ten Brave tools are folded into web_search by design (issue 33 item 12)' },
  },
  web_fetch: { params: { 'url:string': 'I+II', 'format?:enum:markdown|text|html': 'D: Spec I extracts markdown; text and raw HTML on request', 'max_bytes?:integer': 'D: response cap (Spec I caps response bytes)' } },
  http_request: {
    params: {
      'method:enum:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS': 'I', 'url:string': 'I', 'headers?:object': 'I', 'body?:string': 'I', 'json?:any': 'I', 'timeout_ms?:integer': 'D: read time cap (Spec I caps read time)',
    },
    notTaken: { query: 'Spec I "query params" go in the url' },
  },
  // ── Todos & state ───────────────────────────────────────────────────────────────────────────────────────────
  list_todos: { params: NONE },
  manage_todos: { params: { 'todos?:array': 'I+II' } },
  update_work_state: { params: { 'patch:object': 'I' } },
  // ── Memory and scratchpad ───────────────────────────────────────────────────────────────────────────────────
  view_memory: {
    params: { 'query?:string': 'I', 'scope?:enum:user|workspace|project': 'II', 'kind?:enum:memory|lesson': 'I', 'include_proposed?:boolean': 'D: proposed records wait for the person', 'limit?:integer': 'D: page size' },
  },
  manage_memory: {
    params: {
      'action:enum:add|update|remove': 'D: Spec I create/amend/delete/rename (rename is an update of the topic)', 'scope?:enum:user|workspace|project': 'II', 'id?:string': 'I',
      'topic?:string': 'I', 'body?:string': 'I', 'quote:string': 'I',
    },
  },
  propose_lesson: { params: { 'topic:string': 'I', 'lesson:string': 'I', 'scope?:enum:user|workspace|project': 'II' } },
  view_scratchpad: { params: NONE },
  manage_scratchpad: { params: { 'action:enum:write|append|clear': 'D: Spec I names no parameters', 'text?:string': 'D: the draft' }, pending: { 'action:enum:write|append|clear': 'issue 33 item 4 makes the scratchpad durable per workspace' } },
  // ── Plan mode ───────────────────────────────────────────────────────────────────────────────────────────────
  enter_plan_mode: { params: NONE },
  exit_plan_mode: { params: { 'plan_file:string': 'D: the path enter_plan_mode returned, so the person\'s card shows its content', 'options?:array': 'II' } },
  // ── Goals & loops ───────────────────────────────────────────────────────────────────────────────────────────
  propose_goal: {
    params: { 'objective:string': 'I+II', 'criteria:array': 'I', 'milestones?:array': 'I', 'budget?:object': 'II', 'replace?:boolean': 'II' },
    notTaken: { completionCriterion: 'Spec I observable criteria (a list) instead of Spec II one completionCriterion' },
  },
  get_goal: { params: NONE },
  set_goal_budget: { params: { 'value:number': 'II', 'unit:enum:turns|tokens|milliseconds|seconds|minutes|hours|usd': 'D: Spec II units plus usd (a cost budget)' } },
  report_goal_cycle: {
    params: { 'status:enum:continue|complete|blocked|question': 'I+II', 'summary:string': 'II', 'verdict?:enum:impossible|unsafe|contradictory': 'I', 'evidence?:array': 'I' },
  },
  end_loop: { params: { 'reason:string': 'I' } },
  // ── Reminders and triggers ──────────────────────────────────────────────────────────────────────────────────
  add_reminder: { params: { 'when:string': 'I', 'text:string': 'I' } },
  list_reminders: { params: NONE },
  cancel_reminder: { params: { 'id:string': 'I' } },
  register_trigger: {
    params: { 'when?:string': 'I', 'cron?:string': 'II', 'prompt:string': 'I+II', 'conversation?:string': 'D: may only name this conversation (Spec I: resume this exact conversation)' },
    notTaken: { recurring: 'a cron trigger recurs, a `when` trigger fires once (Spec II recurring flag folded into which of the two is given)' },
  },
  list_triggers: { params: NONE },
  cancel_trigger: { params: { 'id:string': 'I+II' } },
  // ── Context ─────────────────────────────────────────────────────────────────────────────────────────────────
  context_info: { params: NONE },
  get_time: { params: NONE },
  retrieve_tool_result: { params: { 'id:string': 'I', 'offset?:integer': 'I', 'length?:integer': 'D: page size' } },
  summarize_context: { params: { 'focus?:string': 'D: what the summary should keep' } },
  search_tools: { params: { 'query:string': 'I', 'max_results?:integer': 'D: how many tools' } },
  // ── Subagents ───────────────────────────────────────────────────────────────────────────────────────────────
  spawn_subagent: {
    params: {
      'prompt:string': 'II', 'description:string': 'II', 'type?:string': 'D: Spec II subagent_type (coder, explore) under a shorter name; general = coder; Spec I researcher; or an agent definition\'s name (issue 47)',
      'background?:boolean': 'D: Spec II run_in_background', 'resume?:string': 'II', 'result_schema?:object': SNAKE, 'model?:string': 'I+II',
      'provider?:enum:anthropic|openai|openai-compatible': 'D: the child\'s model from another configured provider', 'max_minutes?:number': SNAKE, 'max_tokens?:integer': 'D: Spec I maxOutputTokens', 'max_cost_usd?:number': SNAKE,
    },
  },
  map_subagents: {
    params: {
      'prompt_template:string': 'II', 'items?:array': 'II', 'resume_ids?:array': 'D: Spec II resume_agent_ids under a shorter name: earlier children continued in the same batch', 'resume_prompt?:string': 'D: what the resumed children are told',
      'description:string': 'D: as spawn_subagent', 'type?:string': 'D: as spawn_subagent', 'max_concurrency?:integer': 'D: Spec I maxLiveSubagents per call', 'result_schema?:object': SNAKE,
      'model?:string': 'I+II', 'provider?:enum:anthropic|openai|openai-compatible': 'D: as spawn_subagent', 'max_minutes?:number': SNAKE, 'max_tokens?:integer': 'D: as spawn_subagent', 'max_cost_usd?:number': SNAKE,
    },
  },
  list_subagents: { params: NONE },
  wait_subagents: { params: { 'ids?:array': 'I', 'until?:enum:any|all': 'I', 'timeout_seconds?:integer': 'D: Spec II WaitFor timeout, in seconds' } },
  steer_subagent: {
    params: { 'id:string': 'I', 'message?:string': 'I', 'action?:enum:message|pause|resume|cancel': 'I' },
  },
  post_to_blackboard: { params: { 'topic:string': 'I', 'body:string': 'I' } },
  read_blackboard: { params: { 'topic?:string': 'I', 'after_id?:integer': SNAKE, 'limit?:integer': 'D: page size' } },
  // ── Interaction and secrets ─────────────────────────────────────────────────────────────────────────────────
  ask_user_question: { params: { 'questions:array': 'II', 'background?:boolean': 'II' } },
  ask_file_picker: { params: { 'prompt:string': 'I', 'pick?:enum:file|folder|any': 'D: a file, a folder or either', 'multiple?:boolean': 'D: several at once' } },
  ask_user_secret: { params: { 'name:string': 'I', 'description:string': 'I', 'prompt?:string': 'D: the line the person reads' } },
  list_saved_secrets: { params: NONE },
  use_saved_secret: { params: { 'name:string': 'I' } },
  // ── Perception ──────────────────────────────────────────────────────────────────────────────────────────────
  analyze_media: {
    params: { 'path:string': 'I', 'question:string': 'I', 'model?:string': 'I' },
  },
  generate_media: {
    params: { 'prompt:string': 'I', 'kind:enum:image|audio': 'I', 'size?:string': 'D: image size', 'voice?:string': 'D: the speech voice', 'path:string': 'D: where the file is written (the path guard checks it)', 'model?:string': 'I' },
  },
  // ── Compositions ────────────────────────────────────────────────────────────────────────────────────────────
  create_composition: {
    params: {
      'title:string': 'D: shown in the compositions panel', 'kind:enum:html|svg|image|markdown': 'D: what the content is', 'content?:string': 'D: the source', 'path?:string': 'D: or a file',
      'revises?:string': 'D: the next version of a composition (the person reviews versions)', 'mode?:enum:static|interactive': 'I',
      'width?:integer': 'D: the viewport a static page is rendered at',
    },
  },
  create_pdf: {
    params: {
      'composition?:string': 'D: a composition instead of HTML', 'version?:integer': 'D: its version', 'html?:string': 'I', 'markdown?:string': 'D: markdown as well as HTML',
      'path:string': 'I', 'page?:object': 'D: paper size, margins, orientation',
    },
  },
  publish_composition: {
    params: { 'id:string': 'I', 'target:union': 'D: a zip, a folder, or a git target the person configured (a pages branch serves it at a stable URL); not Cloudflare' },
    notTaken: { visibility: 'Spec I public/private (GitHub Pages or Cloudflare Access) is the git target the person configured' },
  },
  // ── Browser ─────────────────────────────────────────────────────────────────────────────────────────────────
  browser_navigate: { params: { 'url:string': 'I', 'tab?:string': 'I' } },
  browser_back: { params: { 'tab?:string': TAB } },
  browser_snapshot: { params: { 'tab?:string': TAB } },
  browser_screenshot: { params: { 'tab?:string': TAB, 'ref?:string': 'D: one element', 'full_page?:boolean': 'D: the whole page' } },
  browser_tabs: { params: { 'action:enum:list|new|select|close': 'I', 'name?:string': 'I' } },
  browser_act: {
    params: {
      'ref:string': 'I', 'action:enum:click|fill|type|press|select|check|hover|upload': 'I', 'value?:string': 'I',
      'dialog?:enum:accept|dismiss': 'D: how a confirm or prompt the action opens is answered', 'tab?:string': TAB,
    },
  },
  browser_close: { params: NONE },
  browser_adopt_tab: {
    params: { 'endpoint?:string': 'D: the person\'s browser (default Settings → browser.endpoint)', 'reason:string': 'D: shown when the person picks the tab' },
  },
  // ── Computer use ────────────────────────────────────────────────────────────────────────────────────────────
  computer_apps: { params: NONE },
  computer_grant_app: { params: { 'app:string': APP, 'capabilities?:array': 'D: observe, pointer, input, foreground', 'minutes?:integer': 'D: how long the grant lasts', 'reason?:string': 'D: shown to the person' } },
  computer_observe: { params: { 'app:string': APP, 'window?:string': 'I', 'screenshot?:boolean': 'I' } },
  computer_wait: { params: { 'app:string': APP, 'until:enum:change|settle': 'I', 'timeout_ms?:integer': 'D: how long to wait' } },
  computer_pointer: {
    params: { 'app:string': APP, 'ref?:string': 'I', 'x?:integer': 'I', 'y?:integer': 'I', 'action:enum:click|double_click|right_click|scroll': 'I', 'dx?:integer': 'D: scroll steps', 'dy?:integer': 'D: scroll steps' },
  },
  computer_input: { params: { 'app:string': APP, 'ref?:string': 'I', 'text?:string': 'I', 'key?:string': 'I', 'replace?:boolean': 'D: replace the element\'s text' } },
  computer_foreground: {
    params: {
      'app:string': APP, 'action?:enum:click|double_click|right_click|scroll': 'I', 'ref?:string': 'I', 'x?:integer': 'I', 'y?:integer': 'I',
      'dx?:integer': 'D: as computer_pointer', 'dy?:integer': 'D: as computer_pointer', 'text?:string': 'I', 'key?:string': 'I', 'replace?:boolean': 'D: as computer_input',
    },
  },
  computer_handoff: { params: { 'instructions:string': 'I' } },
  computer_end: { params: NONE },
  // ── Skills ──────────────────────────────────────────────────────────────────────────────────────────────────
  find_skills: { params: { 'query?:string': 'I' } },
  load_skill: { params: { 'name:string': 'I+II' }, notTaken: { args: 'Spec II Skill args: a loaded skill is instructions for the model, not a call' } },
  load_skill_section: { params: { 'name:string': 'I', 'section:string': 'I' } },
};

/** Catalog tools deliberately not registered, with the reason. */
export const NOT_BUILT: Record<string, string> = {
  computer_install_driver: 'the computer-use helpers ship inside Deskhand (Linux AT-SPI/X11, macOS JXA, Windows UI Automation): there is no driver to install',
  computer_acknowledge_driver: 'no separately installed driver, so no changed driver build to acknowledge',
};

/** Registered tools outside the 93 of the catalog, with where they come from. */
export const BEYOND_CATALOG: Record<string, string> = {
  workflow: 'Spec II Workflow (TOOLS.md Orchestration names workflows without a tool name)',
  tower_init: 'Spec II TowerInit (coordinator mode)',
  tower_plan: 'Spec II TowerPlan',
  tower_spawn: 'Spec II TowerSpawn',
  tower_merge: 'Spec II TowerMerge',
  tower_teardown: 'Spec II TowerTeardown',
  tower_send: 'Spec II TowerSend',
  tower_inbox: 'Spec II TowerInbox',
  tower_finding: 'Spec II TowerFinding',
  tower_review: 'Spec II TowerReview',
  tower_mission: 'Spec II TowerMission',
  tower_status: 'Spec II TowerStatus',
  ask_peer: 'Spec I, registered per agent where peers exist (not among the 93): your model asks another person\'s agent (issue 36)',
  request_clarification: 'Spec I, registered per agent: offered only in a peer\'s conversation, one question back to that peer (issue 36)',
};
