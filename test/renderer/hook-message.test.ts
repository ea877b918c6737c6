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

  it("shows a project hook's reason without the untrusted envelope's markup, and says so", () => {
    const text = '<untrusted source="project Stop hook" nonce="0123456789abcdef">\nStop hook `./check.sh`: lint first\n</untrusted nonce="0123456789abcdef">';
    const html = renderToStaticMarkup(createElement(HookMessage, { item: { kind: 'hook', id: 'h2', runId: 'run_1', event: 'Stop', text, toModel: true, at: 0 } }));
    expect(html).toContain('Stop hook `./check.sh`: lint first');
    expect(html).not.toMatch(/untrusted source|nonce=/);
    expect(html).toContain("a project&#x27;s hook: the agent read it as untrusted content");
  });
});
