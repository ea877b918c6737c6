/**
 * Item 6 of issue 52, rendered: a scheduled wake-up shows as an event (what fired, when, why), with none of the
 * envelope's markup, no id, no "You" and no Edit. The envelope's shape is test/ui/scheduled-fire.test.ts's (over
 * `fireMessage` itself); this one is written out as that function writes it.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ScheduledFireEvent } from '../../src/renderer/components/chat/MessageList';
import { parseScheduledFire } from '../../src/shared/scheduled-fire';

const ENVELOPE = '[Deskhand: scheduled prompt trg_0123abcd fired at sun 2026-12-06 09:00 (UTC)]\n<scheduled-fire id="trg_0123abcd" due="2026-12-06T09:00:00.000Z" cron="0 9 * * *">\nCheck the build.\n</scheduled-fire>';

describe('the scheduled wake-up event', () => {
  it('shows what fired, when and why, and nothing of the envelope', () => {
    const fire = parseScheduledFire(ENVELOPE);
    expect(fire).not.toBeNull();
    const html = renderToStaticMarkup(createElement(ScheduledFireEvent, { fire: fire! }));
    expect(html).toContain('scheduled prompt fired at sun 2026-12-06 09:00 (UTC)');
    expect(html).toContain('Check the build.');
    expect(html).toContain('It repeats on the schedule “0 9 * * *”.');
    expect(html).not.toMatch(/scheduled-fire id|\[Deskhand:|trg_0123abcd|>You<|Edit/);
  });
});
