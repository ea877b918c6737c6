/**
 * Item 6 of issue 52: a scheduled wake-up is an event of its own in the transcript (what fired, when, why), never a
 * "You" message with raw `<scheduled-fire>` markup and an Edit link. The envelope is the one `fireMessage` writes; test/renderer/scheduled-fire-event.test.ts renders it.
 */
import { describe, expect, it } from 'vitest';
import { fireMessage } from '../../src/main/host/background/schedule-fire';
import { fireReason, parseScheduledFire } from '../../src/shared/scheduled-fire';


const row = (extra: Record<string, unknown> = {}) => ({ id: 'trg_0123abcd', text: 'Check the build and tell me if it broke.\nThen plan the day.', tz: 'UTC', cron: null, ...extra }) as never;
const fire = (extra: Record<string, unknown> = {}) => ({ due_at: Date.UTC(2026, 11, 6, 9, 0), coalesced: 1, stale: 0, ...extra }) as never;

describe('a scheduled wake-up in the transcript', () => {
  it.each([
    ['one-time', row(), fire(), /^It was set for /],
    ['recurring', row({ cron: '0 9 * * *' }), fire(), /^It repeats on the schedule “0 9 \* \* \*”\.$/],
    ['missed fires', row({ cron: '0 9 * * *' }), fire({ coalesced: 3 }), /stands for 3 fires missed/],
    ['stale', row({ cron: '0 9 * * *' }), fire({ stale: 1 }), /last fire of this schedule/],
  ])('%s: the prompt, when and why, without the envelope', (_what, r, f, why) => {
    const parsed = parseScheduledFire(fireMessage(r, f));
    expect(parsed).not.toBeNull();
    expect(parsed!.prompt).toBe('Check the build and tell me if it broke.\nThen plan the day.');
    expect(parsed!.firedAt).toMatch(/\d\d:\d\d/);
    expect(fireReason(parsed!)).toMatch(why);
  });

  it('a message the person wrote stays theirs', () => {
    for (const text of ['Remind me at 9', '<scheduled-fire id="x">hi</scheduled-fire>', '[Deskhand: scheduled prompt trg_1 fired at 9]\nno envelope']) {
      expect(parseScheduledFire(text)).toBeNull();
    }
  });
});
