/**
 * What a lifecycle hook said, rendered (docs/hooks.md): a Stop hook's reason the agent read and a hook's note for the
 * person each say whose they are and whether the agent read them; neither is shown as the person's ("You", Edit).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { HookMessage } from '../../src/renderer/components/chat/MessageList';

describe('a hook message', () => {
  it.each([
    [true, 'From the Stop hook · sent the agent back to work', 'Stop hook `./check.sh`: run the tests too'],
    [false, 'From the Stop hooks · a note for you (the agent did not read it)', 'hook `./check.sh` failed (exit 1): boom; ignored'],
  ])('toModel %s: says whose it is and what became of it', (toModel, who, text) => {
    const html = renderToStaticMarkup(createElement(HookMessage, { item: { kind: 'hook', id: 'h1', runId: 'run_1', event: 'Stop', text, toModel, at: 0 } }));
    expect(html).toContain(who);
    expect(html).toContain(text);
    expect(html).not.toMatch(/>You<|Edit/);
  });
});
