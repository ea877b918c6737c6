/**
 * The composer's command menu (state/command-menu.ts): the slash commands of the conversation, loaded when the box
 * starts with `/`, shown as a listbox above it. The hook gives the Composer the items, the selected row and a key
 * handler; the component draws them (a click picks one).
 */
import { useEffect, useState } from 'react';
import type { CommandView } from '../../../shared/contract/extensions';
import { api } from '../../api/client';
import { menuFor, menuKey, rowLabel, completion } from '../../state/command-menu';

export function useCommandMenu(conversationId: string | null, text: string, setText: (t: string) => void) {
  const [loaded, setLoaded] = useState<{ conversationId: string; commands: CommandView[] } | null>(null);
  const [index, setIndex] = useState(0);
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const wants = !!conversationId && text.startsWith('/');
  useEffect(() => {
    if (!wants || !conversationId || loaded?.conversationId === conversationId) return;
    let live = true;
    void api()
      .listCommands({ conversationId })
      .then((r) => live && setLoaded({ conversationId, commands: r.commands }))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [wants, conversationId, loaded]);
  // Each new `/` reads the folder's commands again (a file added since shows up).
  useEffect(() => {
    if (text === '') setLoaded(null);
  }, [text]);
  useEffect(() => setIndex(0), [text]);
  const items = loaded && loaded.conversationId === conversationId && closedAt !== text ? (menuFor(text, loaded.commands) ?? []) : [];
  const selected = Math.min(index, Math.max(items.length - 1, 0));
  /** True when the key was the menu's (the caller then does nothing else with it). */
  const onKey = (e: { key: string; shiftKey: boolean; preventDefault(): void }): boolean => {
    if (!items.length || e.shiftKey) return false;
    const action = menuKey(e.key, items, selected, text);
    if (!action) return false;
    e.preventDefault();
    if (action.kind === 'move') setIndex(action.index);
    else if (action.kind === 'close') setClosedAt(text);
    else setText(action.text);
    return true;
  };
  const pick = (c: CommandView) => setText(completion(c));
  return { items, selected, onKey, pick };
}

export function CommandMenu({ items, selected, pick }: { items: readonly CommandView[]; selected: number; pick: (c: CommandView) => void }) {
  if (!items.length) return null;
  return (
    <ul id="command-menu" className="command-menu" role="listbox" aria-label="Commands">
      {items.map((c, i) => {
        const row = rowLabel(c);
        return (
          <li
            key={c.name}
            id={`command-${i}`}
            role="option"
            aria-selected={i === selected}
            className={i === selected ? 'selected' : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              pick(c);
            }}
          >
            <code>{row.name}</code>
            {row.hint && <span className="muted small"> {row.hint}</span>}
            <span className="small"> — {row.description}</span>
            {row.origin && <span className="muted small"> ({row.origin})</span>}
          </li>
        );
      })}
    </ul>
  );
}
