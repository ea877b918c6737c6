/**
 * `deskhand run --openai-api responses` end to end (issue 48 item 2): the built CLI against the scripted server on the
 * Responses wire. A two-step tool-use turn's second request carries the first step's reasoning item with its
 * encrypted content, the reasoning summary comes out as `thinking` events of `--json`, and a planted secret (in the
 * prompt and in the file the tool reads) never reaches a Responses request.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply, type OpenAIResponsesItem, type OpenAIResponsesRequest } from '../support/model-server';
import { reasoningEncryptedContent } from '../support/provider-validation';
import { useCliWorld } from '../support/cli';

const w = useCliWorld('responses', { flags: ['--openai-api', 'responses', '--model', 'gpt-5', '--thinking', 'low'] });
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';

describe('deskhand run on the Responses wire', () => {
  it('replays the reasoning item with its encrypted content, shows the summary as thinking, and redacts the wire', async () => {
    writeFileSync(join(w.work, 'notes.txt'), `deploy token: ${TOKEN}\n`);
    w.server.enqueue(reply().thinking('Read the notes ').thinking('first.').tool('read_file', { path: 'notes.txt' }), reply().thinking('Summarise.').text('The notes hold a token.'));
    const r = await w.run(`what is in notes.txt? my own token is ${TOKEN}`);
    expect(r.code, r.stderr).toBe(0);
    expect(w.server.requests.map((q) => q.path)).toEqual(['/v1/responses', '/v1/responses']);
    const [first, second] = w.server.requests.map((q) => q.body as OpenAIResponsesRequest);
    expect(first).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' } });
    const items = (second!.input as OpenAIResponsesItem[]).filter((i) => i.type !== undefined);
    expect(items.map((i) => i.type)).toEqual(['reasoning', 'function_call', 'function_call_output']);
    expect(items[0]).toEqual({ type: 'reasoning', id: 'rs_1', encrypted_content: reasoningEncryptedContent('rs_1'), summary: [{ type: 'summary_text', text: 'Read the notes first.' }] });
    expect(items[2]!.call_id).toBe(items[1]!.call_id);
    expect(r.events.filter((e) => e.type === 'thinking').map((e) => e.delta).join('')).toBe('Read the notes first.Summarise.');
    // The secret was in the prompt and in the file the tool read: neither request carries it.
    const sent = w.sentSince(0);
    expect(sent).not.toContain(TOKEN);
    expect(String(items[2]!.output)).toContain('deploy token: [redacted');
    expect(w.server.refused).toEqual([]);
  });
});
