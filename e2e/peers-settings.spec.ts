/**
 * Settings → Peers itself, in the UI: a peer added in the page shows its token once (gone after a reload); its tier,
 * allow list and budget (the cost per day too) changed there and turned off there are what `deskhand peers show
 * --json` (another process, the same data folder) reports. "Accept requests from peers" turned on in the page serves
 * the agent card at the URL the page shows; the token the page showed works there (the A2A SDK's own client), and
 * the peer's conversation appears in the sidebar; turned off, the port is closed. And ask_peer's approval card:
 * "Allow carol for this conversation" approves and lets the second ask to carol in that conversation run unasked.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bearer, sdkClient, sdkSampleServer, textMessage } from '../test/support/a2a';
import { expect, ROOT, test } from './support';

function peersShow(dataDir: string, name: string) {
  const e: NodeJS.ProcessEnv = { ...process.env };
  delete e.DESKHAND_HOME;
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), 'peers', 'show', name, '--json', '--data-dir', dataDir], { env: e, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { tier: string; allow: string[]; enabled: boolean; budget: { turnsPerDay: number; tokensPerDay: number; costPerDay: number | null } };
}

test('Settings → Peers: add (token once), tier, allow, budget, off; the endpoint turned on from the page answers with that token', async ({ deskhand }) => {
  test.setTimeout(180_000);
  await deskhand.startModel([{ text: ['Hello from this Deskhand.'] }]);
  const page = await deskhand.start({ env: { DESKHAND_PEERS_FOLDER: join(deskhand.work, 'peers') } });
  await page.getByRole('button', { name: 'Settings' }).click();

  const add = page.getByRole('form', { name: 'Add a peer' });
  await add.getByLabel('Peer name').fill('alice');
  await add.getByLabel('Tier of the new peer').selectOption('internal');
  await add.getByRole('button', { name: 'Add peer' }).click();
  const shown = page.getByRole('alert', { name: 'New peer token' });
  await expect(shown).toContainText('Give alice this token');
  const token = (await shown.locator('code').textContent())!.trim();
  expect(token).toMatch(/^dhp_/);

  const alice = page.getByRole('listitem', { name: 'Peer alice' });
  await alice.getByLabel('Tier of alice').selectOption('private');
  await expect(page.getByText('alice is now private.')).toBeVisible();
  await alice.getByLabel('Allowed tools of alice').fill('write_file, mkdir');
  await alice.getByRole('button', { name: 'Save allow list' }).click();
  await expect(page.getByText("alice's allow list is saved.")).toBeVisible();
  await alice.getByLabel('Turns per day of alice').fill('7');
  await alice.getByLabel('Cost per day of alice').fill('1.5');
  await alice.getByRole('button', { name: 'Save budget' }).click();
  await expect(page.getByText("alice's budget is saved.")).toBeVisible();
  await alice.getByRole('button', { name: 'Turn off' }).click();
  await expect(alice).toContainText('(off)');

  expect(peersShow(deskhand.dataDir, 'alice')).toMatchObject({ tier: 'private', allow: ['write_file', 'mkdir'], enabled: false, budget: { turnsPerDay: 7, tokensPerDay: 500_000, costPerDay: 1.5 } });

  // The token was shown once: a reload does not show it again, anywhere on the page.
  await page.reload();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('listitem', { name: 'Peer alice' })).toBeVisible();
  expect(await page.content()).not.toContain(token);

  // The endpoint, from the page: on (any free port), its URL shown, the agent card there.
  const endpoint = page.getByRole('form', { name: 'Accept requests from peers' });
  await expect(endpoint.getByLabel('Endpoint address')).toHaveValue('127.0.0.1');
  await endpoint.getByLabel('Endpoint port').fill('0');
  await endpoint.getByRole('checkbox', { name: 'Accept requests from peers' }).click();
  const status = endpoint.getByRole('status', { name: 'Endpoint status' });
  await expect(status).toContainText(/Running at http:\/\/127\.0\.0\.1:\d+/);
  const url = /Running at (http:\/\/127\.0\.0\.1:\d+)/.exec((await status.textContent())!)![1]!;
  const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
  expect(card.supportedInterfaces[0]!.url).toBe(`${url}/a2a`);

  // alice is off: her token is refused. On again: it works, and her conversation appears here.
  const client = await sdkClient(url);
  await expect(client.sendMessage(await textMessage('hello?'), bearer(token))).rejects.toThrow(/401|Unauthenticated/i);
  await page.getByRole('listitem', { name: 'Peer alice' }).getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByText('alice is on.')).toBeVisible();
  const texts: string[] = [];
  for await (const ev of client.sendMessageStream(await textMessage('Hello from alice.'), bearer(token)) as AsyncGenerator<unknown>) {
    const st = (ev as { payload?: { value: { status?: { message?: { parts: { content?: { $case: string; value: string } }[] } } } } }).payload?.value.status;
    for (const part of st?.message?.parts ?? []) if (part.content?.$case === 'text') texts.push(part.content.value);
  }
  expect(texts.at(-1)).toBe('Hello from this Deskhand.');
  await expect(deskhand.sidebarEntry(/^Peer alice/)).toBeVisible({ timeout: 60_000 });

  // Off again from the page (still open): the port is closed.
  await page.getByRole('form', { name: 'Accept requests from peers' }).getByRole('checkbox', { name: 'Accept requests from peers' }).click();
  await expect(page.getByRole('status', { name: 'Endpoint status' })).toContainText('Off.');
  await expect(fetch(`${url}/.well-known/agent-card.json`)).rejects.toThrow();
});

test('ask_peer\'s approval card: "Allow carol for this conversation" lets the next ask to carol run unasked', async ({ deskhand }) => {
  test.setTimeout(120_000);
  const carol = await sdkSampleServer('carol-token-e2e', (text) => `carol read ${text.length} characters`);
  try {
    await deskhand.startModel([
      { tools: [{ name: 'ask_peer', args: { peer: 'carol', message: 'first question' } }] },
      { tools: [{ name: 'ask_peer', args: { peer: 'carol', message: 'second question' } }] },
      { text: ['Carol answered twice.'] },
    ]);
    const page = await deskhand.start();
    const e: NodeJS.ProcessEnv = { ...process.env, DESKHAND_KEYRING_SERVICE: deskhand.keyringService };
    delete e.DESKHAND_HOME;
    const cli = (args: string[], input?: string) => spawnSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), ...args, '--data-dir', deskhand.dataDir], { env: e, encoding: 'utf8', timeout: 60_000, ...(input !== undefined ? { input } : {}) });
    const added = cli(['peers', 'add', 'carol', '--endpoint', carol.url, '--token-stdin'], 'carol-token-e2e');
    expect(added.status, added.stderr).toBe(0);

    await deskhand.newConversation('Ask carol');
    await deskhand.send('ask carol two things');
    const card = page.getByRole('region', { name: 'Ask a peer' });
    await expect(card).toContainText("Send this message to carol's agent");
    await card.getByRole('button', { name: 'Allow carol for this conversation' }).click();
    await expect(page.getByText('Carol answered twice.')).toBeVisible({ timeout: 60_000 });
    expect(carol.received.map((r) => r.text).join('\n')).toMatch(/first question[\s\S]*second question/);
    expect(carol.received.every((r) => r.authorization === 'Bearer carol-token-e2e')).toBe(true);
    const rules = JSON.parse(cli(['rules', 'list', '--json']).stdout) as { tool: string; pattern: string; scope: string }[];
    expect(rules).toEqual([expect.objectContaining({ tool: 'ask_peer', pattern: 'peer:carol', scope: 'conversation' })]);
  } finally {
    await carol.close();
  }
});
