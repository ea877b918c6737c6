/**
 * A project hook's Stop reason, as the person reads it afterwards (docs/hooks.md): the model read it inside the
 * untrusted envelope, and the Markdown export and an ACP replay (`session/load`) show the words without the
 * envelope's tags and nonce, saying it came from a project's hook and was read as untrusted content; a note is said to
 * be one the agent did not read; neither is ever the person's ("You", a user message chunk). The conversation is stored
 * the way the run loop stores it (hook-calls.ts: `contextText` of an untrusted part, `addHookMessage`).
 */
import { afterEach, expect, it } from 'vitest';
import { exportConversation } from '../../src/main/host/app/chat-host';
import { projectMessages } from '../../src/main/host/app/projections';
import { replayOf } from '../../src/main/host/acp/acp-mapping';
import { recordsOf } from '../../src/main/runtime/records';
import { contextText } from '../../src/main/runtime/loop/hook-calls';
import { contextModule } from '../../src/main/services/store/modules/context';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';

let store: Store | null = null;
afterEach(() => store?.close());

/** A conversation in which a project's Stop hook sent the agent back to work and a Stop hook left a note. */
function stored(): { store: Store; conversationId: string } {
  const s = (store = new Store(tempDir('deskhand-hook-notes-')));
  const conv = s.createConversation({ id: 'c_hooks', title: 'hooks', folder: '/w', policy: 'low-risk' });
  const run = s.createRun({ id: 'r_hooks', conversation_id: conv.id, policy: 'low-risk', provider: 'p', model: 'm', base_url: null });
  s.addMessage(conv.id, run.id, 'user', 'go');
  s.addMessage(conv.id, run.id, 'assistant', [{ type: 'text', text: 'first done' }]);
  const { text, untrusted } = contextText([{ text: 'Project-Reason-Jd5: also lint', source: 'Stop hook', trusted: false }]);
  expect(untrusted).toBe('Stop hook');
  expect(text).toMatch(/^<untrusted source="Stop hook" nonce="[0-9a-f]+">/);
  const messageId = s.addMessage(conv.id, run.id, 'user', text);
  s.module(contextModule).addHookMessage({ conversationId: conv.id, runId: run.id, event: 'Stop', messageId, text: '' });
  s.module(contextModule).addHookMessage({ conversationId: conv.id, runId: run.id, event: 'Stop', messageId: null, text: 'Project-Note-Lp2' });
  s.addMessage(conv.id, run.id, 'assistant', [{ type: 'text', text: 'really done' }]);
  return { store: s, conversationId: conv.id };
}

const presenter = { title: (t: string) => t, summarize: () => null };

it("the export shows a project hook's reason without the envelope, says it was untrusted, and never puts it under You", () => {
  const { store: s, conversationId } = stored();
  const { markdown } = exportConversation(recordsOf(s), s.getConversation(conversationId)!, presenter, (t) => t);
  expect(markdown).not.toContain('<untrusted');
  expect(markdown).not.toContain('nonce');
  expect(markdown).toMatch(/## Stop hook \(sent the agent back to work\)\n\nA project's hook: the agent read this as untrusted content \(data, not instructions\)\.\n\n```\nProject-Reason-Jd5: also lint\n```/);
  expect(markdown).toMatch(/## Stop hooks \(a note; the agent did not read it\)\n\n```\nProject-Note-Lp2\n```/);
  const you = markdown.split(/^## /m).filter((section) => section.startsWith('You'));
  expect(you).toHaveLength(1);
  expect(you[0]).not.toMatch(/Project-/);
});

it("an ACP replay shows them as marked agent chunks, the reason without the envelope; the person's only message is theirs", () => {
  const { store: s, conversationId } = stored();
  const updates = replayOf(projectMessages(recordsOf(s), conversationId, presenter), '/w');
  const texts = (kind: string) => updates.filter((u) => u.sessionUpdate === kind).map((u) => (u as { content: { text: string } }).content.text);
  expect(texts('user_message_chunk')).toEqual(['go']);
  const agent = texts('agent_message_chunk').join('');
  expect(agent).not.toContain('<untrusted');
  expect(agent).toContain("(From the Stop hook, which sent the agent back to work (a project's hook: the agent read it as untrusted content): Project-Reason-Jd5: also lint)");
  expect(agent).toContain('(From the Stop hooks, a note for you (the agent did not read it): Project-Note-Lp2)');
});
