/**
 * deep-research: plan sub-questions, research them in parallel with read-only explorers, cross-check the findings on
 * the blackboard, and write one report with sources. `args`: the research question.
 */
import type { CatalogWorkflow } from './workflow';

export const deepResearch: CatalogWorkflow = {
  name: 'deep-research',
  description: 'Research a question in depth: plan sub-questions, research each in parallel, cross-check, write a sourced report.',
  argsHelp: 'the research question',
  script: String.raw`// deep-research: args is the question.
const question = String(args || '').trim();
if (!question) throw new Error('deep-research needs the question as args');

const plan = await phase('Plan', async () => {
  const out = await agent(
    'Break this research question into 3 to 5 independent sub-questions that together answer it. ' +
    'Answer with a JSON array of strings only.\n\nQuestion: ' + question,
    { description: 'plan sub-questions', type: 'explore', result_schema: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 6 } },
  );
  return out;
});

const findings = await phase('Research', async () => {
  progress('researching ' + plan.length + ' sub-questions');
  const results = await map(
    plan,
    'Research this sub-question thoroughly with the tools you have (files, web). Give the answer, then a list of ' +
    'sources (paths or URLs) you actually read. Be factual; say what you could not find.\n\nSub-question: {{input}}\n\n' +
    'It is part of the larger question: ' + question,
    { description: 'research', type: 'explore', max_concurrency: 4 },
  );
  for (const r of results) if (r.status === 'finished') await blackboard.post('finding', r.result);
  return results.map((r, i) => ({ question: plan[i], status: r.status, answer: r.result || r.error }));
});

const usable = findings.filter((f) => f.status === 'finished');
if (usable.length === 0) throw new Error('every research agent failed; nothing to report');

const review = await phase('Cross-check', async () => {
  return agent(
    'These findings answer parts of one question. Point out contradictions, gaps and claims without a source, ' +
    'briefly.\n\nQuestion: ' + question + '\n\nFindings:\n' + JSON.stringify(usable, null, 1),
    { description: 'cross-check findings', type: 'explore' },
  );
});

return phase('Report', async () => {
  return agent(
    'Write the final research report for the question below from the findings and the cross-check. Structure: ' +
    'a short answer, then details per sub-question, then open questions, then sources.\n\nQuestion: ' + question +
    '\n\nFindings:\n' + JSON.stringify(usable, null, 1) + '\n\nCross-check:\n' + review,
    { description: 'write report', type: 'explore' },
  );
});
`,
};
