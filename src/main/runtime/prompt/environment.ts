/** Section: where and when the agent works (changes at most daily within a conversation, so kept after the stable sections). */
export function environmentSection(input: { folder: string; cwd: string; platform: string; date: string; shell: string }): string {
  return `# Environment
- Working folder (workspace root): ${input.folder}
- Current directory: ${input.cwd}
- Platform: ${input.platform}; shell for commands: ${input.shell}
- Today: ${input.date}`;
}
