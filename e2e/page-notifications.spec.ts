/**
 * `deskhand web` in a background tab (issue 51, item 1): once the person allowed notifications (the button in the
 * Approvals panel, the browser's permission granted by the test), an approval that starts waiting while the tab is
 * hidden raises the browser's Notification — what waits and where, never the file's content — and the tab's title
 * counts it; clicking the notification opens the approval. The page's visibility is set by the test (a headless tab is
 * never hidden on its own); the Notification is the browser's own, recorded as it is constructed.
 */
import { expect, test } from './support';

test('an approval waiting in a hidden tab raises a browser notification; its click opens the approval', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', 'The desktop app announces approvals from its main process (test/shell/lifecycle.test.ts).');
  const before = deskhand.pageForListeners()!;
  await before.context().grantPermissions(['notifications']);
  await before.addInitScript(`(() => {
    const Real = window.Notification;
    window.__notes = [];
    window.__clickNote = (i) => window.__notes[i].n.onclick?.(new Event('click'));
    window.Notification = class extends Real {
      constructor(title, options) {
        super(title, options);
        window.__notes.push({ title, body: options?.body ?? '', tag: options?.tag ?? '', n: this });
      }
    };
    let hidden = false;
    Object.defineProperty(document, 'visibilityState', { get: () => (hidden ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { get: () => hidden });
    window.__setHidden = (h) => { hidden = h; document.dispatchEvent(new Event('visibilitychange')); };
  })()`);
  await deskhand.startModel([
    { text: ['Writing it.'], tools: [{ name: 'write_file', args: { path: 'plan.txt', content: 'PAGE-NOTIFY-SECRET-CONTENT\n' } }] },
    { text: ['Done.'] },
    { text: ['Writing the second.'], tools: [{ name: 'write_file', args: { path: 'second.txt', content: 'two\n' } }] },
    { text: ['Done too.'] },
  ]);
  const page = await deskhand.start();
  const notes = () => page.evaluate('window.__notes.map(({ title, body, tag }) => ({ title, body, tag }))') as Promise<{ title: string; body: string; tag: string }[]>;
  await deskhand.newConversation('Background plans');

  // Visible tab: the card is on screen, no notification.
  await deskhand.send('Write plan.txt');
  await expect(deskhand.approvalCard()).toBeVisible();
  expect(await notes()).toEqual([]);
  await expect(page).toHaveTitle(/^\(1\) /);
  await deskhand.approvalCard().getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Done.');
  await expect(page).not.toHaveTitle(/^\(/);

  // Hidden tab: the next approval raises a notification.
  await page.evaluate('window.__setHidden(true)');
  await deskhand.send('Write second.txt');
  await expect.poll(notes).toHaveLength(1);
  const [note] = await notes();
  expect(note!.title).toMatch(/^Approval needed: /);
  expect(note!.body).toBe('Background plans — high-risk');
  expect(JSON.stringify(note)).not.toContain('two');
  await expect(page).toHaveTitle(/^\(1\) /);

  // The click opens that approval.
  await page.evaluate('window.__setHidden(false)');
  await page.evaluate('window.__clickNote(0)');
  await expect(deskhand.approvalCard()).toBeVisible();
  await expect(deskhand.approvalCard()).toContainText('second.txt');
});

test('the Approvals panel offers to allow notifications until the browser was answered', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', 'The desktop app announces approvals from its main process (test/shell/lifecycle.test.ts).');
  await deskhand.startModel([]);
  const page = await deskhand.start();
  const allow = page.getByRole('button', { name: 'Notify me in this browser' });
  await expect(allow).toBeVisible();
  await page.context().grantPermissions(['notifications']);
  await allow.click();
  await expect(allow).toBeHidden();
});
