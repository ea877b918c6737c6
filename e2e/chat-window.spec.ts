/**
 * The chat window as a first-time user meets it (issue 34, items 1, 2, 3 and 6), in `deskhand web`: notices that fade
 * (errors stay) and never cover Send/Stop or an approval's Deny; sending brings you to your message, and a reader who
 * scrolled up gets "Jump to latest" with a count; a long paste becomes a "pasted text" chip sent whole as a file,
 * with one limit in words; a running command's output shows in its card without opening it.
 */
import type { Locator } from '@playwright/test';
import { expect, test } from './support';

/** Whether two elements' boxes overlap on the page. */
async function overlaps(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  if (!x || !y) return false;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

/** Pastes text into the message box as the clipboard would (a paste event with text/plain). */
async function paste(box: Locator, text: string): Promise<void> {
  await box.evaluate((el, t) => {
    const w = globalThis as unknown as { DataTransfer: new () => { setData(k: string, v: string): void }; ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown };
    const data = new w.DataTransfer();
    data.setData('text/plain', t);
    (el as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(new w.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

test('notices: an error stays clear of Stop, Approve and Deny, and goes with its conversation', async ({ deskhand, context }) => {
  test.skip(deskhand.kind === 'electron', 'A second tab drives the run; the desktop app has one window.');
  await deskhand.startModel([{ text: ['First answer.'] }, { tools: [{ name: 'write_file', args: { path: 'notes.txt', content: 'hello\n' } }] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Notices');
  await deskhand.send('First question');
  await expect(page.getByText('First answer.')).toBeVisible();

  // The person starts editing their message (just sent: no reload needed); meanwhile a second tab asks for a write.
  await page.getByRole('article', { name: 'You' }).getByRole('button', { name: 'Edit' }).click();
  const other = await context.newPage();
  await other.goto(`${deskhand.url}${new URL(page.url()).hash}`);
  const otherBox = other.getByRole('textbox', { name: 'Message' });
  await otherBox.fill('Write the notes');
  await otherBox.press('Enter');
  const card = deskhand.approvalCard();
  await expect(card).toBeVisible();
  const stop = page.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeVisible();

  // Sending the edit now is refused with an error notice: announced as an alert, and nowhere over the controls.
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  const error = page.getByRole('alert').filter({ hasText: 'Deskhand is working' });
  await expect(error).toBeVisible();
  for (const control of [stop, card.getByRole('button', { name: 'Approve' }), card.getByRole('button', { name: 'Deny' }), card.getByRole('textbox', { name: /^Reason for denying/ })]) {
    expect(await overlaps(error, control), 'the notice covers a control').toBe(false);
  }
  // It stays (an error may need reading twice)…
  await page.waitForTimeout(7000);
  await expect(error).toBeVisible();
  // …until the person opens another conversation: it belonged to this one.
  await other.close();
  await deskhand.newConversation('Elsewhere');
  await expect(page.getByText('Deskhand is working')).toHaveCount(0);
});

test('notices: an info notice is announced politely and fades by itself', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await deskhand.newConversation('Quiet');
  await page.getByRole('textbox', { name: 'Message' }).press('Control+Enter');
  const info = page.getByRole('status').filter({ hasText: 'Nothing in this conversation is waiting for you.' });
  await expect(info).toBeVisible();
  await expect(info).toHaveAttribute('aria-live', 'polite');
  await expect(page.getByText('Nothing in this conversation is waiting for you.')).toHaveCount(0, { timeout: 12_000 });
});

test('sending brings the reader to their message; a reader scrolled up gets "Jump to latest" with a count', async ({ deskhand }) => {
  const long = (n: number) => Array.from({ length: 40 }, (_, i) => `Answer ${n}, line ${i + 1}.`).join('\n\n');
  await deskhand.startModel([{ text: [long(1)] }, { text: [long(2)] }, { text: ['Short third answer.'] }, { text: ['The fourth answer arrived late.'], delayMs: 1500 }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Scrolling');
  await deskhand.send('Question one');
  await expect(page.getByText('Answer 1, line 40.')).toBeVisible();
  await deskhand.send('Question two');
  await expect(page.getByText('Answer 2, line 40.')).toBeVisible();

  const log = page.getByRole('log', { name: 'Messages' });
  const toTop = () => log.evaluate((el) => el.scrollTo({ top: 0 }));
  await toTop();
  await expect(page.getByText('Answer 1, line 1.', { exact: true })).toBeInViewport();
  const jump = page.getByRole('button', { name: /^Jump to latest/ });
  await expect(jump).toBeVisible();

  // Sending from up there brings the reader down to their own message.
  await deskhand.send('Question three');
  await expect(page.getByRole('article', { name: 'You' }).filter({ hasText: 'Question three' })).toBeInViewport();
  await expect(page.getByText('Short third answer.')).toBeInViewport();
  await expect(jump).toHaveCount(0);

  // A reader who scrolls up while the answer comes is left there, and told how much is new.
  await deskhand.send('Question four');
  await toTop();
  await expect(page.getByRole('button', { name: 'Jump to latest: 1 new' })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText('The fourth answer arrived late.')).not.toBeInViewport();
  await page.getByRole('button', { name: 'Jump to latest: 1 new' }).click();
  await expect(page.getByText('The fourth answer arrived late.')).toBeInViewport();
  await expect(jump).toHaveCount(0);
});

test('a long paste becomes a pasted-text chip sent whole as a file; a paste over the limit is refused in words', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Got the log.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Pastes');
  const box = page.getByRole('textbox', { name: 'Message' });
  const lines = Array.from({ length: 2150 }, (_, i) => `log line ${i + 1}: something happened`);
  await paste(box, lines.join('\n'));

  // Not a wall of text in the box: a chip, and the box stays empty for the question.
  await expect(box).toHaveValue('');
  const pending = page.getByRole('list', { name: 'Files to send' });
  await expect(pending.getByText('Pasted text (pasted-text-1.txt)')).toBeVisible();
  await box.fill('What went wrong here?');
  await box.press('Enter');
  await expect(page.getByText('Got the log.')).toBeVisible();

  // The model got all of it, as an attached file.
  const user = JSON.stringify(deskhand.requests().at(-1)?.body.messages?.filter((m) => m.role === 'user'));
  expect(user).toContain('Attached file pasted-text-1.txt');
  expect(user).toContain('log line 1: something happened');
  expect(user).toContain('log line 2150: something happened');
  expect(user).toContain('What went wrong here?');

  // The transcript shows the chip, collapsed; opening it shows the text in a bounded box, not 2,150 lines of page.
  const mine = page.getByRole('article', { name: 'You' });
  await expect(mine.getByText('Pasted text (pasted-text-1.txt)')).toBeVisible();
  await expect(page.getByText('log line 1: something happened')).toHaveCount(0);
  await mine.getByRole('button', { name: 'Show pasted-text-1.txt' }).click();
  const text = mine.getByLabel('Text of pasted-text-1.txt');
  await expect(text).toContainText('log line 1: something happened');
  expect((await text.boundingBox())!.height).toBeLessThan(400);
  expect((await mine.boundingBox())!.height).toBeLessThan(600);

  // Over the one limit: refused before sending, in words, with the way forward.
  await paste(box, 'x'.repeat(1_960_000));
  await expect(box).toHaveValue('');
  const problem = page.getByRole('alert').filter({ hasText: 'This text is 1.9 MB' });
  await expect(problem).toContainText('a message can carry at most 700 KB of pasted text and files');
  await expect(problem).toContainText('Save it as a file in the conversation\'s folder and ask Deskhand to read it');
  await expect(page.getByText(/Invalid params/)).toHaveCount(0);
});

test("a running command's output streams in its card without opening it", async ({ deskhand }) => {
  await deskhand.startModel([{ tools: [{ name: 'execute_command', args: { command: 'for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.7; done' } }] }, { text: ['Done ticking.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Live output');
  await deskhand.send('Tick for me');
  const card = page.getByRole('article', { name: 'Tool call execute_command: running' });
  await expect(card.getByLabel('Output of execute_command so far')).toContainText('tick 2', { timeout: 20_000 });
  // Still closed: the person did not have to expand it.
  await expect(card.getByRole('button').first()).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByText('Done ticking.')).toBeVisible({ timeout: 20_000 });
});
