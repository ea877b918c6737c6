/** The shell family: `execute_command` (wait_for and cancel_wait_for join when background jobs exist). */
import type { ToolDefinition } from '../../runtime/tool';
import { executeCommand } from './execute-command';

export const shellTools: ToolDefinition[] = [executeCommand];
