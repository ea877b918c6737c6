/**
 * Item 1 of issue 52 in the browser: a model that streams fast (a few characters every 2 ms, as fast local servers and
 * reasoning models do) with text followed by a tool call. The live transcript showed only the end of the text
 * ("seconds.") and kept it so after the run; the person must see every word, live and after the run ends, without a
 * reload. (test/ui/bursty-stream.test.ts drives the store through the exact order of answers and events.)
 */
import { expect, test } from './support';

const FIRST = 'Working on the first message for a few seconds. First I am going to look at the folder you gave me.';
const SECOND = 'The folder is listed; here is what I found in it.';
const pieces = (text: string) => text.match(/.{1,3}/gs)!;

test('fast bursts of text before a tool call show whole, live and after the run', async ({ deskhand, page: tab }) => {
  test.skip(deskhand.kind === 'electron', 'The web host’s socket and batching are what this covers.');
  const turn = [
    { text: pieces(FIRST), tools: [{ name: 'ls', args: { path: '.' } }], delayMs: 2 },
    { text: pieces(SECOND), delayMs: 2 },
  ];
  // Three turns: the race is a matter of timing, each turn is one more chance to lose the beginning.
  await deskhand.startModel([...turn, ...turn, ...turn]);
  // What the page asked and what it was sent, in order: a load of the transcript while the step streams is the race.
  const wire: string[] = [];
  tab.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      const m = /"method":"(\w+)"/.exec(String(f.payload));
      if (m) wire.push(`ask ${m[1]}`);
    });
    ws.on('framereceived', (f) => {
      for (const m of String(f.payload).matchAll(/"event":"run","payload":\{"type":"([\w.]+)"/g)) wire.push(`event ${m[1]}`);
    });
  });
  const page = await deskhand.start();
  await deskhand.newConversation('Fast stream');
  for (let round = 0; round < 3; round++) {
    await deskhand.send(round === 0 ? 'Look at the folder' : `Again ${round}`);
    const replies = page.getByRole('article', { name: 'Deskhand' });
    await expect(replies.filter({ hasText: SECOND })).toHaveCount(round + 1);
    await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
    // Every reply of the first step is whole: none holds only the end of the sentence.
    const texts = await replies.allInnerTexts();
    const firsts = texts.filter((t) => t.includes('going to look') || t.includes('seconds.'));
    expect(firsts.map((t) => t.includes(FIRST))).toEqual(Array(round + 1).fill(true));
  }
  // The page's own message settled with its run: `run.started` asks for no load of the transcript while it streams.
  const sent = wire.indexOf('ask sendMessage');
  const firstCall = wire.indexOf('event tool.call', sent);
  expect(sent).toBeGreaterThan(-1);
  expect(firstCall).toBeGreaterThan(sent);
  expect(wire.slice(sent, firstCall).filter((w) => w === 'ask getMessages')).toEqual([]);
});
