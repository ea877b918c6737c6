/**
 * What a tool card says about who cleared a call, written when it happens (store module `chat`): the saved rule that
 * allowed it, or where the person answered. Calls the policy allowed need no note (their decision says so).
 */
import { chatModule } from '../../services/store/modules/chat';
import type { RuleRow, Store } from '../../services/store/store';

/** A rule cleared the call: its pattern and scope, in words, on the card. */
export function noteRule(store: Store, toolCallId: string, rules: readonly RuleRow[], ids: readonly string[]): void {
  const matched = rules.filter((r) => ids.includes(r.id));
  const words = matched.map((r) => `${r.pattern} (${r.scope === 'everywhere' ? 'everywhere' : `this ${r.scope}`})`).join(', ');
  store.module(chatModule).noteCleared(toolCallId, 'rule', words || null, Date.now());
}

/** A person answered the call's approval, in this UI. */
export function notePerson(store: Store, toolCallId: string, via: string | undefined): void {
  if (via) store.module(chatModule).noteCleared(toolCallId, 'person', via, Date.now());
}
