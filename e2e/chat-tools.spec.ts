/**
 * The conversation tools of issue 21 as a person uses them in `deskhand web`: copy a reply and a code block (read back
 * from the clipboard), regenerate the last reply, edit an earlier message and send it again, and attach an image and
 * a text file by the button, by paste and by drop — also to a message queued while a run works — proved by what the
 * scripted model server received.
 */
import { artifact, expect, test, type RecordedRequestLine } from './support';

// The smallest valid PNG (1×1).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** The page's clipboard (this Node project has no DOM types; the function runs in the page). */
const readClipboard = () => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText();

/** The page's DataTransfer, File and event constructors, typed as far as these steps use them. */
interface PageDom {
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: unknown[], name: string, opts: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
  DragEvent: new (type: string, init: Record<string, unknown>) => unknown;
  atob(s: string): string;
}

const userTexts = (r: RecordedRequestLine | undefined): string =>
  JSON.stringify((r?.body.messages ?? []).filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => m.content));

test('copy, regenerate, and edit and resend', async ({ deskhand, context }) => {
  test.skip(deskhand.kind === 'electron', 'The clipboard is read through the web page; the desktop run of this spec adds nothing.');
  await deskhand.startModel([
    { text: ['Answer one.'] },
    { text: ['Here is the code:\n\n```js\nconsole.log("copied code")\n```\n'] },
    { text: ['Regenerated reply.'] },
    { text: ['Edited answer.'] },
  ]);
  const page = await deskhand.start();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(deskhand.url).origin });
  await deskhand.newConversation('Chat tools');
  await deskhand.send('First question');
  await expect(page.getByText('Answer one.')).toBeVisible();
  await deskhand.send('Second question');
  await expect(page.getByText('Here is the code:')).toBeVisible();

  await page.getByRole('button', { name: 'Copy code block 1 (js)' }).click();
  await expect.poll(() => page.evaluate(readClipboard)).toBe('console.log("copied code")');

  const before = deskhand.requests().at(-1);
  await page.getByRole('button', { name: 'Regenerate' }).click();
  await expect(page.getByText('Regenerated reply.')).toBeVisible();
  await expect(page.getByText('Here is the code:')).toHaveCount(0);
  // The same conversation went to the model again.
  expect(userTexts(deskhand.requests().at(-1))).toBe(userTexts(before));
  // Tokens (the scripted model has no price: tokens only) under the turn and in the header.
  await expect(page.getByLabel(/^This conversation: \d[\d,]* in · \d[\d,]* out$/)).toBeVisible();
  await page.screenshot({ path: artifact(`${deskhand.kind}-chat-regenerate.png`) });

  const first = page.getByRole('article', { name: 'You' }).filter({ hasText: 'First question' });
  await first.getByRole('button', { name: 'Edit' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toHaveValue('First question');
  await expect(page.getByText(/Editing your message/)).toBeVisible();
  await page.screenshot({ path: artifact(`${deskhand.kind}-chat-edit.png`) });
  await box.fill('First question, edited');
  await page.getByRole('button', { name: 'Send edit' }).click();
  await expect(page.getByText('Edited answer.')).toBeVisible();
  await expect(page.getByText('Second question')).toHaveCount(0);
  await expect(page.getByText('Answer one.')).toHaveCount(0);
  const sent = userTexts(deskhand.requests().at(-1));
  expect(sent).toContain('First question, edited');
  expect(sent).not.toContain('Second question');

  await page.getByRole('article', { name: 'Deskhand' }).filter({ hasText: 'Edited answer.' }).getByRole('button', { name: 'Copy reply' }).click();
  await expect.poll(() => page.evaluate(readClipboard)).toBe('Edited answer.');
  // After a reload the transcript is the edited branch.
  await page.reload();
  await expect(page.getByText('Edited answer.')).toBeVisible();
  await expect(page.getByText('Second question')).toHaveCount(0);
});

test('attachments by button, paste and drop reach the model as parts', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['A dot and your notes.'] }, { text: ['Pasted and dropped, seen.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Attachments');

  await page.getByLabel('Attach files').setInputFiles([
    { name: 'dot.png', mimeType: 'image/png', buffer: PNG },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('buy milk\n') },
  ]);
  const pending = page.getByRole('list', { name: 'Files to send' });
  await expect(pending.getByText('dot.png')).toBeVisible();
  await expect(pending.getByText('notes.txt')).toBeVisible();
  await deskhand.send('What are these?');
  await expect(page.getByText('A dot and your notes.')).toBeVisible();
  const sent = JSON.stringify(deskhand.requests().at(-1)!.body);
  expect(sent).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
  expect(sent).toContain('Attached file notes.txt:');
  expect(sent).toContain('buy milk');
  const shown = page.getByRole('article', { name: 'You' }).getByRole('list', { name: 'Attachments' });
  await expect(shown.getByRole('img', { name: 'dot.png' })).toBeVisible();
  await expect(shown.getByText('notes.txt')).toBeVisible();

  // Too large: a clear error, nothing attached.
  await page.getByLabel('Attach files').setInputFiles([{ name: 'huge.log', mimeType: 'text/plain', buffer: Buffer.alloc(800 * 1024, 'x') }]);
  await expect(page.getByRole('alert').filter({ hasText: 'huge.log is 800 KB; an attachment may be at most 700 KB.' })).toBeVisible();

  // Paste an image into the message box, drop a text file on the composer.
  await page.getByRole('textbox', { name: 'Message' }).evaluate((el, b64) => {
    const dom = globalThis as unknown as PageDom;
    const bytes = Uint8Array.from(dom.atob(b64), (c) => c.charCodeAt(0));
    const dt = new dom.DataTransfer();
    dt.items.add(new dom.File([bytes], 'pasted.png', { type: 'image/png' }));
    el.dispatchEvent(new dom.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }) as Event);
  }, PNG.toString('base64'));
  await page.locator('form.composer').evaluate((el) => {
    const dom = globalThis as unknown as PageDom;
    const dt = new dom.DataTransfer();
    dt.items.add(new dom.File(['dropped line\n'], 'dropped.md', { type: '' }));
    el.dispatchEvent(new dom.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }) as Event);
  });
  await expect(pending.getByText('pasted.png')).toBeVisible();
  await expect(pending.getByText('dropped.md')).toBeVisible();
  await page.screenshot({ path: artifact(`${deskhand.kind}-chat-attachments.png`) });
  await deskhand.send('And these?');
  await expect(page.getByText('Pasted and dropped, seen.')).toBeVisible();
  const second = JSON.stringify(deskhand.requests().at(-1)!.body);
  expect(second).toContain('Attached file dropped.md:');
  expect(second).toContain('dropped line');
  expect(second.split(`data:image/png;base64,${PNG.toString('base64')}`).length - 1).toBe(2);
  await page.screenshot({ path: artifact(`${deskhand.kind}-chat-attachments-sent.png`) });
});

test('files attached to a message queued while a run works go out with it as parts', async ({ deskhand }) => {
  await deskhand.startModel([
    // Held after its first words until the files are attached and queued: the run works exactly as long as the test needs.
    { text: ['Working', ' on', ' it', ' slowly', ' now.'], hold: 'working' },
    { text: ['Queued files seen.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Queued files');
  await deskhand.send('Start something long');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();

  // While it works: a file by the button, an image by paste, a text file by drop, then Enter queues them.
  await page.getByLabel('Attach files').setInputFiles([{ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('queued report line\n') }]);
  await page.getByRole('textbox', { name: 'Message' }).evaluate((el, b64) => {
    const dom = globalThis as unknown as PageDom;
    const bytes = Uint8Array.from(dom.atob(b64), (c) => c.charCodeAt(0));
    const dt = new dom.DataTransfer();
    dt.items.add(new dom.File([bytes], 'queued.png', { type: 'image/png' }));
    el.dispatchEvent(new dom.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }) as Event);
  }, PNG.toString('base64'));
  await page.locator('form.composer').evaluate((el) => {
    const dom = globalThis as unknown as PageDom;
    const dt = new dom.DataTransfer();
    dt.items.add(new dom.File(['dropped while busy\n'], 'busy.md', { type: '' }));
    el.dispatchEvent(new dom.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }) as Event);
  });
  const pending = page.getByRole('list', { name: 'Files to send' });
  await expect(pending.getByText('busy.md')).toBeVisible();
  await expect(pending.getByText('queued.png')).toBeVisible();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Look at these when you are done');
  await box.press('Enter');

  const queued = page.getByRole('article', { name: 'Queued message' });
  await expect(queued).toContainText('Look at these when you are done');
  const files = queued.getByRole('list', { name: 'Files queued with it' });
  await expect(files.getByRole('img', { name: 'queued.png' })).toBeVisible();
  await expect(files.getByText('report.txt')).toBeVisible();
  await expect(files.getByText('busy.md')).toBeVisible();
  await expect(pending).toBeHidden();
  await page.screenshot({ path: artifact(`${deskhand.kind}-chat-queued-attachments.png`) });
  // Nothing went out yet: the model has only the first request.
  expect(deskhand.requests()).toHaveLength(1);

  // The turn ends; the queued message goes out with its files as parts, and shows them in the transcript.
  await deskhand.releaseModel('working');
  await expect(page.getByText('Queued files seen.')).toBeVisible({ timeout: 20_000 });
  await expect(queued).toBeHidden();
  const requests = deskhand.requests();
  expect(requests).toHaveLength(2);
  const last = JSON.stringify(requests[1]!.body.messages?.at(-1));
  expect(last).toContain('Look at these when you are done');
  expect(last).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
  expect(last).toContain('Attached file report.txt:');
  expect(last).toContain('queued report line');
  expect(last).toContain('Attached file busy.md:');
  expect(last).toContain('dropped while busy');
  const shown = page.getByRole('article', { name: 'You' }).last().getByRole('list', { name: 'Attachments' });
  await expect(shown.getByRole('img', { name: 'queued.png' })).toBeVisible();
  await expect(shown.getByText('busy.md')).toBeVisible();
});

test('past tool cards say who approved and keep a denied diff after a reload', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'write_file', args: { path: `${deskhand.work}/kept.txt`, content: 'kept\n' } }] },
    { text: ['Written.'] },
    { tools: [{ name: 'write_file', args: { path: `${deskhand.work}/refused.txt`, content: 'refused line\n' } }] },
    { text: ['Not written.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Cards');
  await deskhand.send('write kept');
  await deskhand.approvalCard().getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Written.')).toBeVisible();
  await deskhand.send('write refused');
  const card = deskhand.approvalCard();
  await card.getByRole('textbox', { name: /Reason for denying/ }).fill('no');
  await card.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByText('Not written.')).toBeVisible();

  await page.reload();
  const done = page.getByRole('article', { name: 'Tool call write_file: done' });
  await done.getByRole('button', { expanded: false }).click();
  await expect(done.getByText(/^Approved by you in the web UI at /)).toBeVisible();
  const denied = page.getByRole('article', { name: 'Tool call write_file: denied' });
  await denied.getByRole('button', { expanded: false }).click();
  await expect(denied.getByText(/^Denied by you in the web UI at /)).toBeVisible();
  await expect(denied.getByLabel('Denied change of write_file')).toContainText('refused line');
  await page.screenshot({ path: artifact(`${deskhand.kind}-chat-past-cards.png`) });
});
