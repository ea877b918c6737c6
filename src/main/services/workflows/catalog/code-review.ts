/**
 * code-review: review a change from several angles in parallel (correctness, security, tests), then merge the
 * reviews into one list of findings by severity. `args`: what to review (a path, a branch, "the uncommitted changes").
 */
import type { CatalogWorkflow } from './workflow';

export const codeReview: CatalogWorkflow = {
  name: 'code-review',
  description: 'Review a change in parallel for correctness, security and tests, then merge the findings by severity.',
  argsHelp: 'what to review: a path, a git range, or "the uncommitted changes"',
  script: String.raw`// code-review: args says what to review.
const target = String(args || '').trim() || 'the uncommitted changes in the working folder (git diff)';
const angles = ['correctness and edge cases', 'security (injection, secrets, unsafe input handling)', 'tests: what is untested or tested weakly'];

const reviews = await phase('Review', async () => {
  const results = await map(
    angles,
    'Review ' + target + ' with read-only tools, looking only at {{input}}. List concrete findings with file:line, ' +
    'why it matters and a suggested fix. Say "no findings" if there are none.',
    { description: 'review', type: 'explore', max_concurrency: 3 },
  );
  return results.map((r, i) => ({ angle: angles[i], status: r.status, review: r.result || r.error }));
});

return phase('Summary', async () => {
  return agent(
    'Merge these code reviews of ' + target + ' into one list, deduplicated, ordered by severity ' +
    '(blocker, major, minor), each with file:line and the fix.\n\n' + JSON.stringify(reviews, null, 1),
    { description: 'merge reviews', type: 'explore' },
  );
});
`,
};
