/** The shell family: `execute_command`, `wait_for`, `cancel_wait_for`. */
import type { ToolDefinition } from '../../runtime/tool';
import { cancelWaitFor } from './cancel-wait-for';
import { executeCommand } from './execute-command';
import { waitFor } from './wait-for';

export const shellTools: ToolDefinition[] = [executeCommand, waitFor, cancelWaitFor];
