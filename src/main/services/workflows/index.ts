/**
 * Workflows as tools see them: start one (catalog name or inline script) for a conversation, list, cancel. The
 * service runs the script in the isolated script host (script-host.ts) and its children through the subagent service.
 */
import type { WorkflowService } from './workflow-service';

export type { WorkflowRow, WorkflowStatus, WorkflowPhase, WorkflowEvent } from '../store/modules/workflows';
export type { WorkflowLimits, StartWorkflowInput, WorkflowCallContext } from './workflow-service';
export { CATALOG, catalogEntry, type CatalogWorkflow } from './catalog';
export { phasesOf } from './script-host';

export type Workflows = Pick<WorkflowService, 'start' | 'resolve' | 'list' | 'get' | 'cancel' | 'events'>;

/** Tools a workflow (or any subagent) never gets: no nesting of workflows. */
export const WORKFLOW_TOOLS: readonly string[] = ['workflow'];
