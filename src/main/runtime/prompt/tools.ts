/** Section: how tools load (tool-families.ts): the default families are loaded; the others are listed by name. */
export function toolsSection(catalog: string | null): string {
  const head = `# Tools
The common tools (files, shell, background tasks, todos, context, questions, web) are loaded.`;
  if (!catalog) return head;
  return `${head} The families below are not loaded yet, to keep requests small; they are one step away. Call search_tools with a family name (or words for what you need) and its tools are callable from your next step, for the rest of the conversation. Calling a listed tool by name also loads its family (the call runs if its arguments are right). Browser and computer use are off until you load them this way or the person enables them.
${catalog}`;
}
