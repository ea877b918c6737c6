/**
 * What an empty conversation offers: a few things to start from. Picking one puts its text in the message box
 * (nothing is sent until the person sends it), so it can be edited first.
 */
import { useConversations } from '../../state/conversations';

export const SUGGESTIONS: { title: string; prompt: string }[] = [
  { title: 'Explain this project', prompt: 'Give me a short tour of this folder: what the project is, how it is laid out, and how to build and test it.' },
  { title: 'Review my changes', prompt: 'Look at the uncommitted changes (git status and git diff) and review them: bugs, risks, and anything missing.' },
  { title: 'Run the tests', prompt: 'Find how this project runs its tests, run them, and summarise any failures with their likely cause.' },
  { title: 'Find TODOs', prompt: 'List the TODO and FIXME comments in this folder, grouped by file, with the ones that look most important first.' },
];

/** Puts text into the composer's message box as if typed (React sees an input event) and focuses it. */
export function fillComposer(text: string): boolean {
  const box = document.querySelector<HTMLTextAreaElement>('.composer textarea');
  if (!box) return false;
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(box, text);
  box.dispatchEvent(new Event('input', { bubbles: true }));
  box.focus();
  box.setSelectionRange(text.length, text.length);
  return true;
}

export function EmptyConversation() {
  const folder = useConversations((s) => s.list.find((c) => c.id === s.selectedId)?.folder ?? '');
  return (
    <section className="empty-conversation" aria-label="Start from a suggestion">
      <h2>What should we do{folder ? ` in ${folder.split('/').filter(Boolean).pop()}` : ''}?</h2>
      <p className="muted">Pick one to put it in the message box, or write your own below.</p>
      <div className="suggestions">
        {SUGGESTIONS.map((s) => (
          <button key={s.title} type="button" className="suggestion" onClick={() => fillComposer(s.prompt)}>
            <strong>{s.title}</strong>
            <span className="muted small">{s.prompt}</span>
          </button>
        ))}
      </div>
    </section>
  );
}
