/**
 * A tool's output text. Where the language is known — read_file's numbered lines of a file whose extension
 * highlight.js knows — the code is highlighted beside its line numbers; anything else is the exact text.
 */
import { memo, useMemo } from 'react';
import { highlightCode, languageForPath } from '../../lib/code-highlight';

const NUMBERED = /^ *(\d+)\t(.*)$/;

/** read_file output split into line numbers, code and the footer after the last numbered line; null if not that shape. */
export function splitNumbered(text: string): { numbers: string[]; code: string; footer: string } | null {
  const lines = text.split('\n');
  const numbers: string[] = [];
  const code: string[] = [];
  let i = 0;
  for (; i < lines.length; i++) {
    const m = NUMBERED.exec(lines[i]!);
    if (!m) break;
    numbers.push(m[1]!);
    code.push(m[2]!);
  }
  if (!numbers.length) return null;
  return { numbers, code: code.join('\n'), footer: lines.slice(i).join('\n') };
}

export const ToolOutput = memo(function ToolOutput({ tool, args, text }: { tool: string; args: unknown; text: string }) {
  const view = useMemo(() => {
    if (tool !== 'read_file') return null;
    const path = args && typeof args === 'object' ? (args as { path?: unknown }).path : null;
    const language = languageForPath(typeof path === 'string' ? path : null);
    const parts = language ? splitNumbered(text) : null;
    if (!parts) return null;
    const hl = highlightCode(parts.code, language);
    return hl.html === null ? null : { ...parts, html: hl.html, language };
  }, [tool, args, text]);
  if (!view) return <>{text}</>;
  return (
    <>
      <span className="code-lines">
        <span className="code-gutter" aria-hidden="true">
          {view.numbers.join('\n')}
        </span>
        {/* highlight.js escapes every character of the source it emits; only its own <span class> tags are markup. */}
        <code className={`code-text language-${view.language}`} dangerouslySetInnerHTML={{ __html: view.html }} />
      </span>
      {view.footer && `\n${view.footer}`}
    </>
  );
});
