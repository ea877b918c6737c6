/** The context family: the time, the context window (compaction, stored results), and finding (deferred) tools. */
import type { ToolDefinition } from '../../runtime/tool';
import { contextInfo } from './context-info';
import { createGetTime, type WorkBudget } from './get-time';
import { createRetrieveToolResult } from './retrieve-tool-result';
import { createSearchTools, type ToolCatalog } from './search-tools';
import { createSummarizeContext, type Compactor } from './summarize-context';

export type { ToolCatalog, Compactor, WorkBudget };

export function createContextFamily(deps: { catalog: ToolCatalog; dataDir?: string; compactor?: Compactor | null; budget?: WorkBudget | null }): { tools: ToolDefinition[] } {
  const tools: ToolDefinition[] = [createGetTime(deps.budget ?? null), contextInfo, createSearchTools(deps.catalog)] as ToolDefinition[];
  // Read when a message is paged back, not here: the compactor may be built after the tools (or not at all in tests).
  const compactor = deps.compactor;
  const dropped = compactor ? (conversationId: string, messageId: number) => compactor.dropped?.(conversationId, messageId) ?? null : null;
  if (deps.dataDir) tools.push(createRetrieveToolResult(deps.dataDir, dropped) as unknown as ToolDefinition);
  if (deps.compactor) tools.push(createSummarizeContext(deps.compactor) as unknown as ToolDefinition);
  return { tools };
}
