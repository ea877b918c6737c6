/** The interaction family: asking the person questions and for files (secrets are the secrets family's). */
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { ToolDefinition } from '../../runtime/tool';
import { askFilePicker, filePickKind } from './ask-file-picker';
import type { TaskService } from '../../services/tasks';
import { createAskUserQuestion, questionKind } from './ask-user-question';

export { formatAnswers } from './ask-user-question';

/** `tasks` (optional) lets ask_user_question ask in the background. */
export function createInteractionFamily(deps: { tasks?: Pick<TaskService, 'startQuestion'> } = {}): { tools: ToolDefinition[]; inputKinds: InputKind[] } {
  return { tools: [createAskUserQuestion(deps.tasks), askFilePicker] as ToolDefinition[], inputKinds: [questionKind as InputKind, filePickKind as InputKind] };
}
