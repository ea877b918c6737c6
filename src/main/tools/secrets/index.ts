/** The secret tools: ask the person for a secret, list saved ones, load one into a run. */
import type { ToolDefinition } from '../../runtime/tool';
import { askUserSecret } from './ask-user-secret';
import { listSavedSecrets } from './list-saved-secrets';
import { useSavedSecret } from './use-saved-secret';

export const secretTools: ToolDefinition[] = [askUserSecret, listSavedSecrets, useSavedSecret] as ToolDefinition[];

export { askUserSecret, listSavedSecrets, useSavedSecret };
