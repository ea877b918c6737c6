/**
 * Processes as families see them: the limits of the processes Deskhand runs (the processes themselves come from
 * TaskService), and the launcher's host-program entry for the fixed helpers a family runs itself (ripgrep, grep).
 */
export { OUTPUT_CAP_BYTES, KILL_GRACE_MS } from './command-process';
export type { CommandExit, CommandProcess } from './command-process';
export type { HeadTailBuffer } from './output-buffer';
export { launchHostProgram, runHostProgram } from './launcher';
export type { LaunchedProcess, HostProgramSpec } from './launcher';
