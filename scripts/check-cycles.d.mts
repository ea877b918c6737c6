/** Types for scripts/check-cycles.mjs (imported by test/lint/import-loops.test.ts). */
export const KEPT_LOOPS: string[][];
export function importGraph(files: string[]): Map<string, Map<string, Set<'value' | 'type' | 'dynamic'>>>;
export function findCycles(graph: Map<string, Map<string, Set<string>>>): { files: string[]; steps: { from: string; to: string; kinds: string[] }[] }[];
export function checkFolders(folders: string[], cwd?: string, kept?: string[][]): string[];
