/**
 * The `deskhand` usage text, in a module of its own that imports nothing: `deskhand --help` prints it without loading
 * the runtime (cli-main.ts loads cli.ts only for a command).
 */
export const USAGE = `Usage:
  deskhand run [--provider anthropic|openai|openai-compatible] [--base-url URL] [--model NAME] [--fallback-model NAME]
               [--policy none|read-only|low-risk|high-risk] [--cwd DIR] [--data-dir DIR]
               [--conversation ID] [--max-steps N] [--sandbox workspace-write|read-only|off] [--profile NAME]
               [--enable browser,computer,…] [--json] PROMPT   (--enable: tool families loaded from the first request)
  deskhand runs list [--json]
  deskhand stop [--data-dir DIR] [--json]   (the computer-use kill switch: every process on the data folder stops)
  deskhand prompt show [--conversation ID | --cwd DIR --policy P] [--provider P]   (the system prompt, in full)
  deskhand tools [--conversation ID | --cwd DIR --policy P] [--json]   (family, tier, whether it asks, loaded/deferred/off)
  deskhand runs show RUN_ID [--json]
  deskhand runs approve APPROVAL_ID [--always [--scope conversation|workspace|everywhere]] [--json]
  deskhand runs deny APPROVAL_ID [--reason TEXT] [--json]
  deskhand policy explain --tool NAME --args JSON [--policy P] [--cwd DIR] [--sandbox MODE] [--root DIR]... [--tainted]
                         [--conversation ID] [--peer NAME]   (prints every inspector's verdict and the rule that matched)
  deskhand policy explain --peer NAME   (the peer's whole ceiling: every tool granted or refused, with the reason)
  deskhand rules list [--json] | rm RULE_ID        (always-allow rules: pattern, scope, source, matches)
  deskhand secrets list [--json]
  deskhand secrets set NAME [--description TEXT]   (reads the value without echo from the terminal, or from stdin)
  deskhand secrets delete NAME
  deskhand grants add-url PATTERN | list [--json] | revoke ID|PATTERN|APP   (URL grants, e.g. https://api.example.com/v1/*; app grants for computer use)
  deskhand search show | set searxng|brave|tavily [--url URL] [--key-secret NAME] | clear
  deskhand web [--port N] [--new-address] [--data-dir DIR] [--json] [provider flags as in run]   (keeps its address; --help)
  deskhand peers add NAME [--tier T] [--endpoint URL] | list | show | rm | allow NAME TOOL... | tier NAME T | serve   (A2A peers; --help)
  deskhand acp [--data-dir DIR] [provider flags as in run]   (an Agent Client Protocol agent on stdio, for editors; --help)
  deskhand memory list [--status S] [--kind memory|lesson] | show ID | rm ID | accept ID | reject ID | export | extraction on|off
  deskhand goals list | show ID | budget ID [--turns N] [--tokens N] [--minutes N]
  deskhand schedule list | cancel ID | run ID | doctor [--dry-run]   (reminders and triggers; [--data-dir DIR] [--json])
  deskhand fire ID [--data-dir DIR] [--json]   (what each OS scheduler job runs; works with the app closed)
  deskhand mcp add NAME [--env K=V]… [--secret-env VAR=SECRET]… [--tier ask|read-only|low-risk|high-risk] -- COMMAND [ARGS…]
  deskhand mcp add NAME --url URL [--sse] [--header K=V]… [--oauth] [--tier T] | list [--json] | remove NAME | test NAME
  deskhand profiles list [--json] | add NAME [--system TEXT] [--model M] [--allow TOOL]… [--deny TOOL]… [--policy P] [--sandbox S] [--custom-tools FILE] | remove NAME
  deskhand compositions list | show ID | export ID [--version N] --out FILE.zip|FOLDER | remote add NAME REPO --branch B [--url PAGES_URL] | remote list | remote remove NAME
  deskhand media companion set --provider P --model M [--image-model I] [--transcription-model T] [--speech-model S] [--also-model M2]… [--also-image-model I2]… [--also-speech-model S2]… [--base-url URL] | show | clear
  deskhand subagents list [--conversation ID] | show ID | steer ID MESSAGE | wait ID [--timeout S] | cancel ID [--reason TEXT]   [--data-dir DIR] [--json]
  deskhand conversations export ID [--out FILE] [--data-dir DIR]   (Markdown: messages, tool calls, outputs; no secrets)
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
