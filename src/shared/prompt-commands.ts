/**
 * Slash commands (docs/commands.md): Markdown prompt templates a person runs as `/name arguments` in the composer,
 * `deskhand run` or an editor. What the runtime asks of them when a message starts a run; the catalog lives in
 * services/commands. Pure types.
 */

/** A command as listed (the composer's menu, `deskhand commands list`, ACP's available_commands). */
export interface PromptCommandInfo {
  /**
   * Without the slash: `review`, `frontend:component` for one in a subfolder, `kit:hello` for plugin kit's `hello`
   * (Claude Code's `/plugin-name:command`).
   */
  name: string;
  description: string;
  argumentHint: string | null;
  /**
   * `person` (the data folder's commands), `plugin` (an enabled plugin's `commands/`, accepted at install: the
   * person's words too), `project` (a workspace's `.deskhand/commands`, `.claude/commands`).
   */
  origin: 'person' | 'plugin' | 'project';
  path: string;
  /** Front matter Deskhand reads but does not apply (allowed-tools never clears a call; model is not switched). */
  allowedTools: string | null;
  model: string | null;
  /** A plugin's command: the plugin (`name@marketplace`) and its name without the plugin's prefix. */
  plugin?: string;
  bare?: string;
  /** The bare name when it runs this command too (no one else's command has it). */
  alias?: string;
}

/** A message that named a command, expanded. */
export interface ExpandedCommand {
  command: PromptCommandInfo;
  /** The message the model gets. */
  text: string;
  /** A project's template: its text is untrusted content (an envelope, and the run is tainted); null for the person's. */
  untrustedSource: string | null;
}

export interface PromptCommands {
  /** The message expanded when it starts with `/name` of a known command; null otherwise (sent as typed). */
  expand(prompt: string, roots: readonly string[]): ExpandedCommand | null;
  list(roots: readonly string[]): PromptCommandInfo[];
}
