/**
 * Cards a person decides in a second (issue 46 item 5): the approval card says what the call will do in one
 * generated sentence, whether it can be taken back, and which grant would cover it next time, and answers to keys
 * (Enter approve once, A always, 1–4 where while choosing, D or Esc deny; Esc first closes the choice). Rendered as
 * the app renders it (react-dom/server), and the key table over many keys and states.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../src/shared/contract/requests';
import { CARD_KEY_HINT, cardKeyAction, doingOf, nextTimeWords, type CardKeyState } from '../../src/shared/card-facts';

// The node typecheck has no JSX: the card is imported by a path it does not follow (as machine-words.test.ts does).
const DECISION_CARD = '../../src/renderer/components/requests/DecisionCard.tsx';
const { DecisionCard } = (await import(/* @vite-ignore */ DECISION_CARD)) as { DecisionCard: (p: { approval: PendingApproval; showConversation: boolean }) => null };

const base: PendingApproval = {
  approvalId: 'apr_00000000-0000-4000-8000-000000000001',
  runId: 'run_1',
  conversationId: 'conv_1',
  conversationTitle: 'calc',
  folder: '/home/ada/calc',
  callId: 'c1',
  tool: 'execute_command',
  title: 'Run a command',
  args: { command: 'npm test' },
  risk: 'high-risk',
  reasons: ['policy "read-only" does not clear high-risk'],
  description: 'Run a command: npm test',
  preview: null,
  alwaysPattern: 'npm test *',
  runStatus: 'running',
  kind: 'approval',
  data: {
    doing: 'Runs `npm test` in the sandbox, network off.',
    reversibility: { kind: 'undoable', words: 'Can be undone from the change list.', reasons: [] },
  },
  secret: null,
  subagent: null,
  createdAt: 0,
};

const html = (a: Partial<PendingApproval>) => renderToStaticMarkup(createElement(DecisionCard, { approval: { ...base, ...a }, showConversation: false }));
const text = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');

describe('the approval card in words', () => {
  it('a command: what it does, that it can be undone, the rule that covers it next time, the keys', () => {
    const out = text(html({}));
    expect(out).toContain('Runs `npm test` in the sandbox, network off.');
    expect(out).toContain('Can be undone from the change list.');
    expect(out).toContain('Always allow (A) covers `npm test` with any further arguments next time — in this conversation, every conversation in /home/ada/calc, or everywhere');
    expect(out).toContain(CARD_KEY_HINT.replace(/&/g, '&'));
    expect(out).not.toContain('No “always allow”');
  });

  it('an irreversible call says so, and one no rule may cover says why instead of a next-time grant', () => {
    const out = text(
      html({
        tool: 'http_request',
        args: { method: 'POST', url: 'https://collect.example/u' },
        reasons: ['this run has read untrusted content, so a call that sends data out of Deskhand asks at every tier (this one is high-risk) and under every policy, unless a URL grant covers each of its URLs: always asks'],
        alwaysPattern: null,
        data: { doing: 'Sends a request to collect.example.', reversibility: { kind: 'irreversible', words: 'Cannot be taken back: it sends material off this computer.', reasons: ['it sends material off this computer'] } },
      }),
    );
    expect(out).toContain('Sends a request to collect.example.');
    expect(out).toContain('Cannot be taken back: it sends material off this computer.');
    expect(out).toContain('No “always allow” for this call');
    expect(out).not.toContain('next time');
  });

  it.each([
    ['a file folder rule', '/home/ada/calc/src/*', 'Always allow (A) covers anything in /home/ada/calc/src/ next time'],
    ['every call of a reminder tool', '*', 'Always allow (A) covers every call of this tool next time'],
    ['an app while its grant lasts', 'app:zenity', 'Always allow (A) covers the app zenity, while its grant lasts next time'],
    ['an exact command', 'git status', 'Always allow (A) covers exactly `git status` next time'],
    ['a workspace root', 'workspace-root:/home/ada/notes', 'Always allow (A) adds /home/ada/notes as a workspace root of this conversation'],
  ])('next time, %s', (_what, pattern, words) => {
    expect(nextTimeWords(pattern, '/home/ada/calc')).toContain(words);
    expect(text(html({ alwaysPattern: pattern }))).toContain(words);
  });

  it('an older request without a sentence shows the title line alone', () => {
    const out = html({ data: { reversibility: { kind: 'no-change', words: 'Changes no files.', reasons: [] } } });
    expect(out).not.toContain('approval-doing');
    expect(doingOf(null)).toBeNull();
    expect(doingOf({ doing: '  ' })).toBeNull();
    expect(doingOf({ doing: 42 })).toBeNull();
  });
});

describe('the card\'s keys', () => {
  const free: CardKeyState = { choosing: false, canAlways: true, peer: false };
  const choosing: CardKeyState = { choosing: true, canAlways: true, peer: false };
  const none: CardKeyState = { choosing: false, canAlways: false, peer: false };
  const peer: CardKeyState = { choosing: false, canAlways: true, peer: true };
  it.each([
    ['Enter', {}, free, 'approve'],
    ['Enter', {}, none, 'approve'],
    ['Enter', {}, choosing, 'always'],
    ['a', {}, free, 'open-always'],
    ['A', {}, free, 'open-always'],
    ['a', {}, none, null],
    ['a', {}, peer, 'always'],
    ['Escape', {}, free, 'deny-reason'],
    ['Escape', {}, choosing, 'close-always'],
    ['d', {}, free, 'deny-reason'],
    ['D', {}, choosing, 'deny-reason'],
    ['1', {}, choosing, { scope: 0 }],
    ['4', {}, choosing, { scope: 3 }],
    ['5', {}, choosing, null],
    ['1', {}, free, null],
    ['1', {}, { ...choosing, peer: true }, null],
    ['Enter', { ctrl: true }, free, null],
    ['Enter', { meta: true }, free, null],
    ['a', { alt: true }, free, null],
    ['x', {}, free, null],
    [' ', {}, free, null],
    ['Backspace', {}, free, null],
  ] as const)('%s %j while %j → %j', (key, mods, state, want) => {
    expect(cardKeyAction(key, mods, state)).toEqual(want);
  });
});
