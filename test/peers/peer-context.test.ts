/**
 * H1 (issue 43): a peer's conversation gets none of the person's context. Context sources declare what they disclose
 * and the peer ceiling judges them like tools (peer-ceiling.ts `peerContextCheck`): recalled memory, the scratchpad,
 * the personal AGENTS.md and the agent profile reveal the person's own (no tier reaches them); the environment's
 * paths reveal their home (written `~` in a peer's conversation); project instructions and plan/goal rank as internal.
 *
 * End to end: B's person has a memory record, a personal AGENTS.md and a home folder; A's peer — at the highest
 * tier, private — asks B's `deskhand peers serve` a question whose words match the memory. B's model request holds
 * none of them. The control: the person's own `deskhand run` in the same data folder, same words, holds all three.
 * The peer's message carries B's credential-named environment value: it reaches B's model as its placeholder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { peerContextCheck, type PeerCeiling } from '../../src/main/runtime/decision/peer-ceiling';
import { RUNTIME_CONTEXT } from '../../src/main/runtime/loop/model-step';
import { withoutHome } from '../../src/main/runtime/loop/model-step';
import type { ContextDisclosure } from '../../src/main/runtime/core';
import { StoreMemoryService } from '../../src/main/services/memory/memory-service';
import { Store } from '../../src/main/services/store/store';
import { PEER_TIERS } from '../../src/shared/peers';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { addPeer, bearer, sdkClient, servePeers, textMessage, type Served } from '../support/peers';

describe('context is judged like tools: every declared disclosure × every tier', () => {
  const ceiling = (tier: (typeof PEER_TIERS)[number]): PeerCeiling => ({ peer: 'alice', tier, allow: [] });
  const blocks: [string, ContextDisclosure, Record<string, boolean>][] = [
    ['recall', { tier: 'private', reveals: ['memory'] }, { public: false, internal: false, private: false }],
    ['scratchpad', { tier: 'private', reveals: ['memory'] }, { public: false, internal: false, private: false }],
    ['personal instructions', RUNTIME_CONTEXT.personalInstructions, { public: false, internal: false, private: false }],
    ['agent profile', RUNTIME_CONTEXT.profile, { public: false, internal: false, private: false }],
    ['environment (home path)', RUNTIME_CONTEXT.environment, { public: false, internal: false, private: false }],
    ['project instructions', RUNTIME_CONTEXT.projectInstructions, { public: false, internal: true, private: true }],
    ['plan / goal', { tier: 'internal', reveals: [] }, { public: false, internal: true, private: true }],
    ['a public block', { tier: 'public', reveals: [] }, { public: true, internal: true, private: true }],
  ];
  const cases = blocks.flatMap(([name, d, granted]) => PEER_TIERS.map((tier) => [name, tier, d, granted[tier]!] as const));
  it.each(cases)('%s at tier %s', (_name, tier, d, granted) => {
    const why = peerContextCheck(d, ceiling(tier));
    expect(why === null).toBe(granted);
    if (why) expect(why.length).toBeGreaterThan(10);
  });

  it.each([
    ['/home/bob/Deskhand peers/alice', '/home/bob', '~/Deskhand peers/alice'],
    ['cwd /home/bob/x and /home/bob/y', '/home/bob/', 'cwd ~/x and ~/y'],
    ['no home here: /srv/data', '/home/bob', 'no home here: /srv/data'],
    ['/ stays', '/', '/ stays'],
    ['/home/bob2/x is another home', '/home/bob', '/home/bob2/x is another home'],
    ['/home/bob.old and /home/bob-x stay', '/home/bob', '/home/bob.old and /home/bob-x stay'],
    ['end: /home/bob', '/home/bob', 'end: ~'],
    ['quoted "/home/bob" and (/home/bob)', '/home/bob', 'quoted "~" and (~)'],
  ])('withoutHome(%s)', (text, home, expected) => {
    expect(withoutHome(text, home)).toBe(expected);
  });
});

describe('a peer conversation\'s request holds none of the person\'s memory, personal instructions or home', () => {
  let model: ModelServer;
  let served: Served | null = null;
  beforeAll(async () => {
    requireBuild();
    model = await startModelServer();
  });
  afterAll(async () => model.close());
  afterEach(async () => {
    await served?.stop();
    served = null;
  });

  it('at the private tier, through deskhand peers serve; the person\'s own run holds them (control)', async () => {
    const home = tempDir('deskhand-h1-home-');
    const dataDir = tempDir('deskhand-h1-data-');
    const project = join(home, 'project');
    mkdirSync(project);
    const MEMORY = 'Mem-Marker-Hv61Tq';
    const PERSONAL = 'Personal-Marker-Gx30Pw';
    writeFileSync(join(dataDir, 'AGENTS.md'), `Always sign as ${PERSONAL}.\n`);
    const store = new Store(dataDir);
    new StoreMemoryService(store).add({ scope: 'user', topic: 'deploy window', body: `Deploys happen on Tuesdays (${MEMORY}).`, quote: null }, { folder: project, actor: 'person (test)' });
    store.close();
    const question = 'When is the deploy window?';

    // Control: the person's own conversation gets memory, the personal file and the home path.
    const fromOwn = model.requests.length;
    model.setFallback(() => reply().text('Tuesdays.'));
    const own = await runCli(['run', '--provider', 'openai', '--base-url', model.baseURL, '--model', 'm', '--cwd', project, '--data-dir', dataDir, '--policy', 'read-only', '--enable', 'memory', '--json', question], { env: { HOME: home } });
    expect(own.code, own.stderr).toBe(0);
    const ownSent = model.requests.slice(fromOwn).map((r) => JSON.stringify(r.body)).join('\n');
    expect(ownSent).toContain(MEMORY);
    expect(ownSent).toContain(PERSONAL);
    expect(ownSent).toContain(home);

    // The peer's conversation, at the highest tier.
    const alice = await addPeer(dataDir, 'alice', ['--tier', 'private']);
    // B's credential-named environment value, which the peer (somehow) knows and sends: its words reach B's model only as the placeholder.
    const CANARY = `PeerCanary${Math.random().toString(36).slice(2, 12)}`;
    served = await servePeers(dataDir, join(home, 'Deskhand peers'), model.baseURL, { HOME: home, BILLING_API_TOKEN: CANARY });
    const from = model.requests.length;
    model.setFallback(() => reply().text('I cannot say.'));
    const client = await sdkClient(served.url);
    const stream = client.sendMessageStream(await textMessage(`${question} (ref ${CANARY})`), bearer(alice.inboundToken)) as AsyncGenerator<unknown>;
    for await (const _ of stream) void _;
    const sent = model.requests.slice(from).map((r) => JSON.stringify(r.body));
    expect(sent.length).toBeGreaterThan(0);
    const all = sent.join('\n');
    expect(all).not.toContain(MEMORY);
    expect(all).not.toContain(PERSONAL);
    expect(all).not.toContain(home);
    // The folder is named without the home: `~/Deskhand peers/alice`.
    expect(all).toContain('~/Deskhand peers/alice');
    // The peer's words did reach the model (the request is the peer's conversation).
    expect(all).toContain('deploy window');
    expect(all).not.toContain(CANARY);
    expect(all).toContain('(ref [redacted:BILLING_API_TOKEN])');
  }, 240_000);
});
