/**
 * A message that starts with `/name` of a known slash command (docs/commands.md) is sent as the command's template
 * with its arguments filled in: the person's own template as their words, a project's inside an untrusted envelope
 * (the run starts tainted). Commands come from `RuntimeCore.commands` (the host's services/commands catalog).
 */
import type { ConversationRow } from '../../services/store/store';
import { PersistentConversationState } from '../context/conversation-state';
import type { RuntimeCore } from '../core';
import { wrapUntrusted } from '../context/untrusted';

export function expandSlashCommand(core: RuntimeCore, conv: Pick<ConversationRow, 'folder' | 'state'>, prompt: string): { prompt: string; untrusted: boolean } {
  if (!core.commands || !prompt.startsWith('/')) return { prompt, untrusted: false };
  const expanded = core.commands.expand(prompt, new PersistentConversationState(conv.folder, conv.state).workspaceRoots);
  if (!expanded) return { prompt, untrusted: false };
  if (!expanded.untrustedSource) return { prompt: expanded.text, untrusted: false };
  return { prompt: `${prompt.split('\n')[0]!.slice(0, 500)}\n\n${wrapUntrusted(expanded.untrustedSource, expanded.text)}`, untrusted: true };
}
