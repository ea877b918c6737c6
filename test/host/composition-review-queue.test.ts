/**
 * A review given in the composition viewer while the agent works in that conversation is not lost: it waits and is
 * told when the run ends (a comment joins the conversation, asking for changes starts the next run), in the order
 * given. Over the real app service, runtime, tools and scripted model server; the effect is the model's next request.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let h: Harness;
let work: string;

const scripted = () => ({ provider: 'openai-compatible' as const, model: 'scripted', baseURL: server.baseURL, apiKey: null });
const finished = (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload;
const question = (e: ContractEvent): PendingApproval | undefined => (e.event === 'approvalsChanged' ? e.payload.approvals.find((a) => a.kind === 'question') : undefined);
const QUESTION = { question: 'Which colour?', header: 'Colour', options: [{ label: 'Blue', description: 'blue' }, { label: 'Red', description: 'red' }] };

beforeEach(async () => {
  server = await startModelServer();
  work = tempDir('deskhand-review-work-');
  h = openHarness({ dataDir: tempDir('deskhand-review-data-'), override: scripted() });
});

afterEach(async () => {
  await h.service.shutdown();
  h.close();
  await server.close();
});

describe('a review given while the agent works', () => {
  it('waits for the run to end, then a comment joins the conversation and asking for changes starts the next run', async () => {
    server.enqueue(reply().tool('create_composition', { title: 'Chart', kind: 'html', content: '<!doctype html><p>v1</p>' }), reply().text('Made it.'));
    const { id: conversationId } = await h.service.createConversation({ folder: work, policy: 'high-risk' });
    await h.service.sendMessage({ conversationId, text: 'make a chart' });
    await h.waitFor(finished);
    const [composition] = (await h.service.listCompositions({ conversationId })).compositions;
    expect(composition).toBeDefined();

    // The next turn waits on a question: the run is active while the person reviews.
    server.enqueue(reply().tool('ask_user_question', { questions: [QUESTION] }), reply().text('Blue it is.'), reply().text('Revised with the legend.'));
    await h.service.sendMessage({ conversationId, text: 'now pick a colour' });
    const asked = await h.waitFor(question);
    const before = server.requests.length;
    const comment = await h.service.reviewComposition({ id: composition!.id, version: 1, action: 'comment', text: 'COMMENT-WHILE-BUSY' });
    const changes = await h.service.reviewComposition({ id: composition!.id, version: 1, action: 'changes', text: 'CHANGES-WHILE-BUSY: add a legend' });
    expect(comment.note).toMatch(/told when it finishes/);
    expect(changes.note).toMatch(/told when it finishes/);
    expect(changes.runId).toBeNull();
    expect(server.requests.length).toBe(before);

    await h.service.answerRequest({ requestId: asked.approvalId, value: { answers: { 'Which colour?': 'Blue' } } });
    await h.waitFor(finished); // the question's run
    await h.waitFor(finished); // the run the changes started
    const last = JSON.stringify(server.requests.at(-1)!.body);
    expect(last).toContain('COMMENT-WHILE-BUSY');
    expect(last).toContain('CHANGES-WHILE-BUSY: add a legend');
    expect(last.indexOf('COMMENT-WHILE-BUSY')).toBeLessThan(last.indexOf('CHANGES-WHILE-BUSY'));
    // The question's run never saw them: they came after it.
    expect(JSON.stringify(server.requests.at(-2)!.body)).not.toContain('CHANGES-WHILE-BUSY');
  });
});
