/** The catalog of workflows shipped with Deskhand (`workflow {name}`): each a script file of its own here. */
import { deepResearch } from './deep-research';
import { codeReview } from './code-review';
import type { CatalogWorkflow } from './workflow';

export type { CatalogWorkflow } from './workflow';

export const CATALOG: readonly CatalogWorkflow[] = [deepResearch, codeReview];

export function catalogEntry(name: string): CatalogWorkflow | undefined {
  return CATALOG.find((w) => w.name === name);
}
