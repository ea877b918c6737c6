/**
 * The review message's two halves (issue 34 item 17): what reviewMessage writes parses back into the same review, and
 * text the person could type that only looks like one (no instructions, other instructions, a changed header) stays
 * their own words.
 */
import { describe, expect, it } from 'vitest';
import { personMessages } from '../../src/main/host/assembly/memory-host';
import { recordsOf } from '../../src/main/runtime/records';
import { parseReviewMessage, reviewMessage, type Review } from '../../src/main/host/assembly/review-message';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';

const base: Review = { composition: 'cmp_0123456789', title: 'Figures "Q3"\nnorth', version: 2, action: 'comment', text: 'Bigger title.\n\nAnd a legend.' };

describe('review messages', () => {
  it.each<Review>([
    base,
    { ...base, action: 'changes' },
    { ...base, action: 'approve', text: '' },
    { ...base, action: 'approve', text: 'Looks right.' },
    { ...base, action: 'changes', text: '' },
    { ...base, title: '' },
  ])('round-trips $action with text %#', (r) => {
    expect(parseReviewMessage(reviewMessage(r))).toEqual(r);
  });

  const real = reviewMessage(base);
  it.each<[string, string]>([
    ['the header alone', real.split('\n')[0]!],
    ['no instructions', real.slice(0, real.lastIndexOf('\n\n'))],
    ['instructions of another action', real.replace(' comment] ', ' changes] ')],
    ['another version in the header', real.replace(' v2 ', ' v3 ')],
    ['a version 0', real.replace(' v2 ', ' v0 ')],
    ['not a composition id', real.replace('cmp_0123456789', 'cmp_XYZ')],
    ['text after the instructions', `${real}\nthanks`],
    ['a leading space', ` ${real}`],
    ['an unquoted title', real.replace(JSON.stringify(base.title), 'Figures')],
    ['plain chat', 'Please make the title bigger.'],
  ])('%s is the person’s own text', (_, text) => {
    expect(parseReviewMessage(text)).toBeNull();
  });

  it("memory's quote rule takes only the person's words of a review, never Deskhand's instructions", () => {
    const store = new Store(tempDir('deskhand-review-store-'));
    try {
      const c = store.createConversation({ id: 'conv_rev', title: 't', folder: '/tmp', policy: 'read-only' });
      store.addMessage(c.id, null, 'user', 'Make a figures page');
      store.addMessage(c.id, null, 'user', reviewMessage(base));
      store.addMessage(c.id, null, 'user', reviewMessage({ ...base, action: 'approve', text: '' }));
      expect(personMessages(recordsOf(store), c.id)).toEqual(['Make a figures page', 'Bigger title.\n\nAnd a legend.']);
    } finally {
      store.close();
    }
  });
});
