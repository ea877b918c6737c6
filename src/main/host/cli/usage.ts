/**
 * The `deskhand` usage text, in a module of its own that imports nothing: `deskhand --help` prints it without loading
 * the runtime (cli-main.ts loads cli.ts only for a command).
 */
export const USAGE = `Usage:
  deskhand run [--provider anthropic|openai|openai-compatible] [--base-url URL] [--model NAME] [--fallback-model NAME]
               [--thinking off|low|medium|high|max|TOKENS]   (how much a reasoning model thinks; TOKENS: a budget ≥ 1024)
               [--openai-api chat|responses]   (OpenAI's wire: Chat Completions, the default, or the Responses API)
               [--policy none|read-only|low-risk|high-risk] [--cwd DIR] [--data-dir DIR]
               [--compact-at PERCENT]   (compact the context at this share of the window; default: Settings, 80)
               [--conversation ID] [--max-steps N] [--sandbox workspace-write|read-only|off] [--profile NAME]
               [--enable browser,computer,…] [--json] PROMPT   (--enable: tool families loaded from the first request)
  deskhand runs list [--json]
  deskhand stop [--data-dir DIR] [--json]   (the computer-use kill switch: every process on the data folder stops)
  deskhand prompt show [--conversation ID | --cwd DIR --policy P] [--provider P]   (the system prompt, in full)
  deskhand tools [--conversation ID | --cwd DIR --policy P] [--json]   (family, tier, whether it asks, loaded/deferred/off)
  deskhand runs show RUN_ID [--json]
  deskhand usage [--since YYYY-MM-DD|7d] [--by day|conversation|model|provider|cause] [--json]   (tokens and cost of every model call)
  deskhand usage prices list | set MODEL --input N --output N [--cache-read N] [--cache-write N] | rm MODEL   ($ per million tokens)
  deskhand usage budget list | set (--conversation ID | --day) (--usd N | --tokens N) | rm (--conversation ID | --day)
               (a run parks before a model call that would cross it: deskhand runs answer HOLD_ID --value '{"usd": N}' or '{"stop": true}')
  deskhand runs approve APPROVAL_ID [--always [--scope task|conversation|workspace|everywhere] [--for hour|today|until-revoked]] [--json]
  deskhand runs deny APPROVAL_ID [--reason TEXT] [--json]
  deskhand runs review RUN_ID CALL_ID [--json]   (you read that untrusted tool result and vouch for it: it no longer taints the conversation)
  deskhand policy explain --tool NAME --args JSON [--policy P] [--cwd DIR] [--sandbox MODE] [--root DIR]... [--tainted]
                         [--conversation ID] [--peer NAME] [--run-hooks]   (prints every inspector's verdict and the rule that matched;
                         the PreToolUse hooks that apply, run with --run-hooks)
  deskhand policy explain --peer NAME   (the peer's whole ceiling: every tool granted or refused, with the reason)
  deskhand rules list [--json] | rm RULE_ID        (always-allow rules: pattern, scope, expiry, source, matches)
  deskhand secrets list [--json]
  deskhand secrets set NAME [--description TEXT]   (reads the value without echo from the terminal, or from stdin)
  deskhand secrets delete NAME
  deskhand instructions trust [--cwd DIR] | list | untrust [--cwd DIR]   (trust a folder's AGENTS.md/CLAUDE.md: pinned by sha256; until then, and after a change, they reach the model as untrusted)
  deskhand hooks list [--cwd DIR] | trust [--cwd DIR] | untrust [--cwd DIR]   (lifecycle hooks in Claude Code's schema: yours in settings.json run as written; a project's run sandboxed, only once trusted, pinned by sha256)
  deskhand commands list [--cwd DIR]   (slash commands: Markdown templates in <data dir>/commands, plugins, .deskhand/commands, .claude/commands; run one with deskhand run "/name args")
  deskhand compat on|off|status [--cwd DIR] | list   (Claude Code compatibility for a folder, off by default: read its .claude/commands, .claude/agents and .claude/settings.json hooks)
  deskhand plugins marketplace add URL|PATH | marketplace list | install NAME@MARKET [--yes] | list | enable NAME@MARKET | disable NAME@MARKET | remove NAME@MARKET | update NAME@MARKET [--yes]   (Claude Code plugins: commands, agents, skills, hooks, MCP servers)
  deskhand agents list [--cwd DIR]   (agent definitions: Markdown files in <data dir>/agents, .deskhand/agents, .claude/agents, plugins; each a subagent type)
  deskhand grants add-url PATTERN | list [--json] | revoke ID|PATTERN|APP   (URL grants, e.g. https://api.example.com/v1/*; app grants for computer use)
  deskhand search show | set searxng|brave|tavily [--url URL] [--key-secret NAME] | clear
  deskhand web [--port N] [--new-address] [--listen ADDR[:PORT] | --remote LINK|URL] [--data-dir DIR] [--json] [provider flags as in run]   (keeps its address; --listen: paired devices over TLS; --help)
  deskhand devices pair [--name NAME] [--minutes N] | list | revoke NAME|ID   (a phone or another Deskhand; pairing shows a QR code and a short code)
  deskhand peers add NAME [--tier T] [--endpoint URL] | list | show | rm | allow NAME TOOL... | tier NAME T | serve   (A2A peers; --help)
  deskhand acp [--data-dir DIR] [provider flags as in run]   (an Agent Client Protocol agent on stdio, for editors; --help)
  deskhand memory list [--status S] [--kind memory|lesson] | show ID | rm ID | accept ID | reject ID | export | extraction on|off
  deskhand goals list | show ID | budget ID [--turns N] [--tokens N] [--minutes N]
  deskhand schedule list | cancel ID | run ID | doctor [--dry-run]   (reminders and triggers; [--data-dir DIR] [--json])
  deskhand fire ID [--data-dir DIR] [--json]   (what each OS scheduler job runs; works with the app closed)
  deskhand mcp add NAME [--env K=V]… [--secret-env VAR=SECRET]… [--tier ask|read-only|low-risk|high-risk] [--no-roots] -- COMMAND [ARGS…]
  deskhand mcp add NAME --url URL [--sse] [--header K=V]… [--oauth] [--tier T] | list [--json] | remove NAME | test NAME
  deskhand profiles list [--json] | add NAME [--system TEXT] [--model M] [--allow TOOL]… [--deny TOOL]… [--policy P] [--sandbox S] [--custom-tools FILE] | remove NAME
  deskhand compositions list | show ID | export ID [--version N] --out FILE.zip|FOLDER | remote add NAME REPO --branch B [--url PAGES_URL] | remote list | remote remove NAME
  deskhand media companion set --provider P --model M [--image-model I] [--transcription-model T] [--speech-model S] [--also-model M2]… [--also-image-model I2]… [--also-speech-model S2]… [--base-url URL] | show | clear
  deskhand subagents list [--conversation ID] | show ID | steer ID MESSAGE | wait ID [--timeout S] | cancel ID [--reason TEXT]   [--data-dir DIR] [--json]
  deskhand conversations export ID [--out FILE] [--data-dir DIR]   (Markdown: messages, tool calls, outputs; no secrets)
  deskhand conversations fork ID [--at MESSAGE] [--json]   (a new conversation with the history up to MESSAGE, e.g. 42 or m42)
  deskhand changes ID [--turn N] [--json] [--data-dir DIR]   (the files each of your turns changed, diffs for text)
  deskhand changes prune [--max-mb N] [--max-days N]   (the change ledger's retention; settings: changeRetention)
  deskhand rewind ID (--to MESSAGE_ID | --turn N | --redo) [--files | --conversation | --both] [--dry-run] [--json]
                 (files back to before that message, byte for byte; what you changed since is kept and named)
  deskhand workflows list [--conversation ID] | show ID | cancel ID [--reason TEXT]   [--data-dir DIR] [--json]
  deskhand tower list | show ID | teardown ID [--yes] [--reason TEXT]   [--data-dir DIR] [--json]   (teardown removes its worktrees and tower/* branches)

Keys come from ANTHROPIC_API_KEY / OPENAI_API_KEY. --data-dir defaults to DESKHAND_HOME, else the OS app-data folder.
Commands run in the OS sandbox (--sandbox, default workspace-write; off asks before every command). \`run\` waits
for the background tasks its conversation started; each result continues the conversation. Ctrl-C stops them.
Exit codes: 0 finished, 3 parked waiting for approval, 1 failed, 2 usage error.`;

/** Commands whose own module prints a fuller usage for `--help` (their flags need a paragraph each). */
const OWN_HELP = new Set(['web', 'acp', 'peers']);

/** The arguments before `--` (after it come a command's own arguments: `mcp add NAME -- COMMAND --help`). */
function ownArgs(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

/** The commands the usage text lists, in its order (`deskhand run`, `deskhand runs`, …). */
export function usageCommands(): string[] {
  const seen: string[] = [];
  for (const m of USAGE.matchAll(/^ {2}deskhand ([a-z]+)/gm)) if (!seen.includes(m[1]!)) seen.push(m[1]!);
  return seen;
}

/** The usage lines of one command (with their continuation lines), or of one of its subcommands when it has its own. */
export function commandUsage(command: string, sub?: string): string | null {
  const lines = USAGE.split('\n');
  const blocks: string[][] = [];
  for (const line of lines) {
    if (/^ {2}deskhand /.test(line)) blocks.push([line]);
    else if (/^ {3,}\S/.test(line) && blocks.length) blocks.at(-1)!.push(line);
    else if (!line.trim()) break;
  }
  const of = (prefix: string) => blocks.filter((b) => new RegExp(`^ {2}deskhand ${prefix}(?=[\\s\\[(]|$)`).test(b[0]!));
  const mine = of(command);
  if (!mine.length) return null;
  const subs = sub && /^[a-z][a-z-]*$/.test(sub) ? of(`${command} ${sub}`) : [];
  const chosen = subs.length ? subs : mine;
  const footer = USAGE.slice(USAGE.indexOf('\n\n') + 2);
  return `Usage:\n${chosen.map((b) => b.join('\n')).join('\n')}\n\n${footer}\nEvery command: deskhand --help.`;
}

/**
 * What `deskhand ARGS` answers without running anything: `--version`, or `--help`/`-h` anywhere before `--` (the
 * usage of the command and subcommand named, exit 0). Null when the command runs (or prints its own help: web, acp,
 * peers), or the command is unknown (the dispatcher says so).
 */
export function helpAnswer(argv: readonly string[], version: () => string): { text: string; code: number } | null {
  const args = ownArgs(argv);
  const [command, sub] = args;
  if (command === '--version' || command === '-V' || command === 'version') return { text: `deskhand ${version()}`, code: 0 };
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    const named = command === 'help' && sub ? commandUsage(sub) : null;
    return { text: named ?? USAGE, code: command === undefined ? 2 : 0 };
  }
  if (!args.includes('--help') && !args.includes('-h')) return null;
  if (OWN_HELP.has(command)) return null;
  const text = commandUsage(command, sub);
  return text ? { text, code: 0 } : null;
}
