/** Section: how tools load (tool-families.ts): the default families are loaded; the others are listed by name. */
export function toolsSection(catalog: string | null): string {
  const head = `# Tools
The common tools (files, shell, background output, todos, questions, web, search_tools) are loaded.`;
  if (!catalog) return head;
  return `${head} These families are not loaded yet: search_tools with a family name (or words for what you need) loads it from your next step on; calling a listed tool by name also loads its family (and runs if its arguments are right). Browser and computer are off until loaded this way or enabled by the person.
${catalog}`;
}
