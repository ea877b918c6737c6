/** One workflow of the catalog (catalog/index.ts lists them; each is a script file of its own beside it). */
export interface CatalogWorkflow {
  name: string;
  description: string;
  /** What `args` means for it. */
  argsHelp: string;
  script: string;
}
