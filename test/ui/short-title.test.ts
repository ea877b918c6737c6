/** Item 3 of issue 52: a conversation's first title is short and about the task, so similar tasks can be told apart. */
import { describe, expect, it } from 'vitest';
import { shortTitle } from '../../src/shared/short-title';

describe('shortTitle', () => {
  it.each([
    ['Make me a quarterly sales report for the team', 'Quarterly sales report for the team'],
    ['Can you please find why the build fails on CI?', 'Find why the build fails on CI?'],
    ['Please summarize src/', 'Summarize src/'],
    ["I'd like you to rename the config keys", 'Rename the config keys'],
    ['hi', 'hi'],
    ['Run the tests', 'Run the tests'],
    ['  \n', 'New conversation'],
    ['Write me a   letter\nwith details below', 'Letter'],
    ['Look through every file in the repository and list the ones that still use the old logger', 'Look through every file in the repository and…'],
  ])('%j → %j', (message, title) => {
    expect(shortTitle(message)).toBe(title);
    expect(shortTitle(message).length).toBeLessThanOrEqual(49);
  });
});
