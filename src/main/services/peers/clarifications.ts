/**
 * request_clarification's channel: a question the agent of a peer's conversation puts back to that peer, waiting for
 * their one answer. The A2A endpoint (host/peers) registers itself for each conversation it is following and carries
 * the question to the peer as the task's `input-required` status; the peer's next message on that task is the answer.
 */
export interface PeerClarifier {
  /** Puts one question to the peer whose task this conversation is serving; resolves with their answer. */
  clarify(conversationId: string, question: string, signal: AbortSignal): Promise<{ peer: string; answer: string }>;
}

type Asker = (question: string, signal: AbortSignal) => Promise<{ peer: string; answer: string }>;

export class PeerClarifications implements PeerClarifier {
  private readonly askers = new Map<string, Asker>();

  /** The endpoint follows this conversation's task: questions go through `asker`. Returns its remover. */
  serve(conversationId: string, asker: Asker): () => void {
    this.askers.set(conversationId, asker);
    return () => {
      if (this.askers.get(conversationId) === asker) this.askers.delete(conversationId);
    };
  }

  async clarify(conversationId: string, question: string, signal: AbortSignal): Promise<{ peer: string; answer: string }> {
    const asker = this.askers.get(conversationId);
    if (!asker) throw new Error('No peer is waiting on this conversation in this process, so there is nobody to ask; answer with what you have and say what is unclear.');
    return asker(question, signal);
  }
}
