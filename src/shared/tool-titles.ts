/** Plain words for tools, shared by approval cards, the tray and notifications. Pure. */
const TOOL_TITLES: Record<string, string> = {
  read_file: 'Read a file',
  write_file: 'Write a file',
  edit_file: 'Edit a file',
  multi_edit: 'Edit a file',
  apply_patch: 'Apply a patch',
  delete_file: 'Delete a file',
  move_file: 'Move a file',
  copy_file: 'Copy a file',
  list_directory: 'List a folder',
  glob: 'Find files',
  grep: 'Search file contents',
  execute_command: 'Run a command',
  run_command: 'Run a command',
  bash: 'Run a command',
  web_fetch: 'Fetch a web page',
  web_search: 'Search the web',
  ask_user_secret: 'Enter a secret',
  use_saved_secret: 'Use a saved secret',
  manage_todos: 'Update the todo list',
};

export function toolTitle(tool: string): string {
  if (Object.prototype.hasOwnProperty.call(TOOL_TITLES, tool)) return TOOL_TITLES[tool]!;
  const words = tool.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : tool;
}
