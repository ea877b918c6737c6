/**
 * The "Mark as reviewed" line of an untrusted tool result's card (ToolCard.tsx), rendered as the app renders it
 * (react-dom/server): what marking means in one line, no marking before the whole text is shown, and the mark once made.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

// The node typecheck has no JSX: the card is imported by a path it does not follow (as approval-card.test.ts does).
const TOOL_CARD = '../../src/renderer/components/chat/ToolCard.tsx';
type Props = { review: { by: string; at: number } | null; cut: boolean; tool: string; onMark: () => void };
const { ReviewLine } = (await import(/* @vite-ignore */ TOOL_CARD)) as { ReviewLine: (p: Props) => null };

const html = (p: Partial<Props>) => renderToStaticMarkup(createElement(ReviewLine, { review: null, cut: false, tool: 'web_fetch', onMark: () => {}, ...p }));

describe('ReviewLine', () => {
  it('offers the mark and says what it means', () => {
    const out = html({});
    expect(out).toContain('Mark as reviewed');
    expect(out).toContain('aria-label="Mark the output of web_fetch as reviewed"');
    expect(out).toMatch(/vouch for it: it stops counting as outside content/);
    expect(out).not.toContain('disabled');
  });

  it('while only a preview is shown, the whole text comes first', () => {
    const out = html({ cut: true });
    expect(out).toMatch(/<button[^>]*disabled/);
    expect(out).toContain('Show all of it first');
  });

  it('once marked, says so and offers nothing more', () => {
    const out = html({ review: { by: 'cli', at: 0 } });
    expect(out).toContain('Reviewed by you (cli');
    expect(out).not.toContain('<button');
  });
});
