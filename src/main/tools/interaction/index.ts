/** The interaction family: asking the person questions and for files (secrets are the secrets family's). */
import type { InputKind } from '../../runtime/input-kinds';
import type { ToolDefinition } from '../../runtime/tool';
import { askFilePicker, filePickKind } from './ask-file-picker';
import { askUserQuestion, questionKind } from './ask-user-question';

export function createInteractionFamily(): { tools: ToolDefinition[]; inputKinds: InputKind[] } {
  return { tools: [askUserQuestion, askFilePicker] as ToolDefinition[], inputKinds: [questionKind as InputKind, filePickKind as InputKind] };
}
