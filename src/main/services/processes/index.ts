/** Limits of the processes Deskhand runs, for tools that describe them (the processes themselves come from TaskService). */
export { OUTPUT_CAP_BYTES, KILL_GRACE_MS } from './command-process';
export type { CommandExit, CommandProcess } from './command-process';
export type { HeadTailBuffer } from './output-buffer';
