/**
 * ask_peer through `deskhand run` (the scripted model server drives it): Deskhand's A2A client reaches a server built
 * with the SDK alone, with the saved token as Bearer, sends only what the model wrote, and the answer comes back in the
 * untrusted envelope naming the peer and taints the run. Then the two-Deskhand journey: A's model asks B (a
 * `deskhand peers serve`), B's model answers, A's model reads B's answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { toolResults, useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';
import { rawAll } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { addPeer, sdkSampleServer, servePeers, type Served } from '../support/peers';

const w = useCliWorld('ask-peer', { policy: 'high-risk' });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('ask_peer', () => {
  it('reaches an SDK-built server with the saved token; the answer is untrusted and taints the run', async () => {
    const sample = await sdkSampleServer('carol-token-123', (text) => `carol says: you asked "${text}"`);
    closers.push(sample.close);
    await addPeer(w.dataDir, 'carol', ['--endpoint', sample.url], undefined);
    await w.cli(['peers', 'token', 'carol', '--outbound-stdin', '--data-dir', w.dataDir], { input: 'carol-token-123' });
    w.server.enqueue(reply().tool('ask_peer', { peer: 'carol', message: 'What is the plan for Friday?' }), reply().text('Carol answered.'));
    const from = w.server.requests.length;
    const r = await w.run('Ask carol about Friday.');
    expect(r.code).toBe(0);
    expect(sample.received.at(-1)!.authorization).toBe('Bearer carol-token-123');
    expect(sample.received.at(-1)!.text).toContain('What is the plan for Friday?');
    // Only the model's words were sent: not the person's prompt, not the system prompt.
    expect(sample.received.map((x) => x.text).join('')).not.toContain('Ask carol about Friday');
    const result = toolResults(r).join('\n');
    expect(result).toContain('carol says: you asked');
    const next = JSON.stringify(w.server.requests[from + 1]!.body);
    expect(next).toMatch(/<untrusted source=\\"peer carol\\" nonce=/);
    const runs = rawAll<{ tainted: number }>(w.dataDir, 'SELECT tainted FROM runs');
    expect(runs.at(-1)!.tainted).toBe(1);
  }, 180_000);

  it('a wrong token is a clean tool error, and asks under a lower policy', async () => {
    const sample = await sdkSampleServer('right-token', () => 'never');
    closers.push(sample.close);
    await addPeer(w.dataDir, 'carol', ['--endpoint', sample.url], undefined);
    await w.cli(['peers', 'token', 'carol', '--outbound-stdin', '--data-dir', w.dataDir], { input: 'wrong-token' });
    w.server.enqueue(reply().tool('ask_peer', { peer: 'carol', message: 'hi' }), reply().text('It failed.'));
    const r = await w.run('Ask carol.');
    expect(toolResults(r).join('\n')).toMatch(/Could not reach peer carol/);
    // Under low-risk, the high-risk egress asks (and parks here: exit 3) before anything is sent.
    const before = sample.received.length;
    w.server.enqueue(reply().tool('ask_peer', { peer: 'carol', message: 'hi again' }));
    const parked = await w.run('Ask carol again.', { policy: 'low-risk' });
    expect(parked.code).toBe(3);
    expect(sample.received.length).toBe(before);
  }, 180_000);

  it("a card naming another address is refused through deskhand run: the listener there hears nothing (issue 43, M2)", async () => {
    const { startServer } = await import('../web/servers');
    const trap = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    closers.push(trap.close);
    const sample = await sdkSampleServer('carol-token-123', () => 'never', { interfaceUrl: () => `http://127.0.0.1:${trap.port}/rpc` });
    closers.push(sample.close);
    await addPeer(w.dataDir, 'carol', ['--endpoint', sample.url], undefined);
    await w.cli(['peers', 'token', 'carol', '--outbound-stdin', '--data-dir', w.dataDir], { input: 'carol-token-123' });
    w.server.enqueue(reply().tool('ask_peer', { peer: 'carol', message: 'What is the plan for Friday?' }), reply().text('It failed.'));
    const r = await w.run('Ask carol about Friday.');
    expect(r.code).toBe(0);
    expect(toolResults(r).join('\n')).toMatch(new RegExp(`Could not reach peer carol: peer carol's agent card points to http://127\\.0\\.0\\.1:${trap.port}/rpc, not to its configured endpoint`));
    expect(trap.log).toEqual([]);
    expect(sample.received).toEqual([]);
    // Under low-risk it asks, and the approval names the configured address and what it is.
    w.server.enqueue(reply().tool('ask_peer', { peer: 'carol', message: 'hi again' }));
    const parked = await w.run('Ask carol again.', { policy: 'low-risk' });
    expect(parked.code).toBe(3);
    const asked = rawAll<{ reasons: string; description: string }>(w.dataDir, "SELECT reasons, description FROM approvals WHERE status = 'pending'");
    expect(asked[0]!.reasons).toContain(`ask_peer sends the message to peer carol's agent at ${sample.url} (127.0.0.1 is a loopback address (this machine))`);
    expect(asked[0]!.description).toContain(`carol's agent at ${sample.url}`);
  }, 180_000);

  it('two Deskhands on loopback: A asks B, B answers under its ceiling, A reads the answer', async () => {
    const bData = tempDir('deskhand-peer-b-');
    const aliceAtB = await addPeer(bData, 'alice', ['--tier', 'internal']);
    const served: Served = await servePeers(bData, tempDir('deskhand-peer-work-'), w.server.baseURL);
    closers.push(() => served.stop());
    await addPeer(w.dataDir, 'bob', ['--endpoint', served.url, '--token-stdin'], aliceAtB.inboundToken);
    w.server.enqueue(
      reply().tool('ask_peer', { peer: 'bob', message: 'What time is it where you are?' }),
      // B's model (the same scripted server): a tool its ceiling allows, then the answer.
      reply().tool('get_time', {}),
      reply().text('Bob here: it is tea time.'),
      reply().text('Bob says it is tea time.'),
    );
    const r = await w.run('Ask bob the time.');
    expect(r.code).toBe(0);
    expect(toolResults(r).join('\n')).toContain('Bob here: it is tea time.');
    const atB = rawAll<{ title: string }>(bData, 'SELECT c.title FROM conversations c JOIN peer_conversations p ON p.conversation_id = c.id');
    expect(atB.map((c) => c.title)).toEqual(['Peer alice: What time is it where you are?']);
  }, 180_000);

  it('B asks A back (request_clarification): A gets input-required, its next ask_peer answers that task, B finishes', async () => {
    const bData = tempDir('deskhand-peer-b-');
    const aliceAtB = await addPeer(bData, 'alice', ['--tier', 'public']);
    const served: Served = await servePeers(bData, tempDir('deskhand-peer-work-'), w.server.baseURL);
    closers.push(() => served.stop());
    await addPeer(w.dataDir, 'bob', ['--endpoint', served.url, '--token-stdin'], aliceAtB.inboundToken);
    w.server.enqueue(
      reply().tool('ask_peer', { peer: 'bob', message: 'Can we meet on Friday?' }),
      reply().tool('request_clarification', { question: 'Which Friday?' }),
      reply().tool('ask_peer', { peer: 'bob', message: 'This Friday, the 4th.' }),
      reply().text('Yes, this Friday works.'),
      reply().text('Bob agreed.'),
    );
    const running = w.run('Ask bob about Friday.');
    // request_clarification is low-risk: B's person approves it as any low-risk call of a read-only conversation.
    let pending: { id: string; tool: string }[] = [];
    for (let i = 0; i < 300 && !pending.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      pending = rawAll<{ id: string; tool: string }>(bData, "SELECT id, tool FROM approvals WHERE status = 'pending'");
    }
    expect(pending.map((p) => p.tool)).toEqual(['request_clarification']);
    const { runCli } = await import('../support/cli');
    expect((await runCli(['runs', 'approve', pending[0]!.id, '--data-dir', bData])).code).toBe(0);
    // A's run read the peer's answer (untrusted), so its next egress asks even under high-risk: it parks (exit 3).
    const r = await running;
    expect(r.code).toBe(3);
    const aPending = rawAll<{ id: string; tool: string }>(w.dataDir, "SELECT id, tool FROM approvals WHERE status = 'pending'");
    expect(aPending.map((p) => p.tool)).toEqual(['ask_peer']);
    const resumed = await w.cli(['runs', 'approve', aPending[0]!.id, '--data-dir', w.dataDir, '--json']);
    expect(resumed.code).toBe(0);
    const results = rawAll<{ output: string }>(w.dataDir, "SELECT output FROM tool_calls WHERE tool = 'ask_peer' ORDER BY rowid").map((x) => x.output);
    expect(results[0]).toMatch(/bob asks back before answering/);
    expect(results[0]).toContain('Which Friday?');
    expect(results[1]).toContain('Yes, this Friday works.');
    // B's model read A's answer as the clarification's result, in the envelope naming the peer.
    const bRequest = w.server.requests.map((q) => JSON.stringify(q.body)).find((b) => b.includes('This Friday, the 4th.') && b.includes('Which Friday?') && b.includes('peer alice'));
    expect(bRequest).toBeTruthy();
    // One conversation at B, one turn counted (the answer continues the task).
    expect(rawAll<{ turns: number }>(bData, 'SELECT turns FROM peer_usage')).toEqual([{ turns: 1 }]);
  }, 180_000);
});
