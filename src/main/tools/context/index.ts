/** The context family: the time, the context window, and finding (deferred) tools. */
import type { ToolDefinition } from '../../runtime/tool';
import { contextInfo } from './context-info';
import { getTime } from './get-time';
import { createSearchTools, type ToolCatalog } from './search-tools';

export type { ToolCatalog };

export function createContextFamily(deps: { catalog: ToolCatalog }): { tools: ToolDefinition[] } {
  return { tools: [getTime, contextInfo, createSearchTools(deps.catalog)] as ToolDefinition[] };
}
