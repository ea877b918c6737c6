/**
 * Screenshots of computer actions inside their tool cards, on a real desktop: a private Xvfb + openbox + AT-SPI world
 * (test/computer/world.ts) with zenity's entry dialog. The model grants zenity, observes it, clicks OK by ref (the
 * person approves: the default policy does not clear a pointer action under a grant until revoked); zenity closes, and the computer_pointer card shows
 * the window before and after the click, each labelled.
 */
import { artifact, expect, test } from './support';
import { startWorld, worldMissing } from '../test/computer/world';

test('a computer action\'s card shows its before and after thumbnails', async ({ deskhand }) => {
  const missing = worldMissing();
  test.skip(!!missing, `computer use on X11 cannot run here: ${missing}`);
  test.setTimeout(120_000);
  const world = await startWorld();
  try {
    const zenity = world.spawnApp('zenity', ['--entry', '--title', 'Deskhand test', '--text', 'Your name?', '--entry-text', 'Ada']);
    await world.waitForApp('zenity');
    // The dialog's OK button itself, not only its window: observing earlier would find a tree without it.
    await world.waitForElement('zenity', 'push button', 'OK');
    await deskhand.startModel([
      { tools: [{ name: 'search_tools', args: { query: 'computer' } }] }, // off in a new conversation: the model loads the family first
      { tools: [{ name: 'computer_grant_app', args: { app: 'zenity', capabilities: ['observe', 'pointer'], reason: 'answer the dialog' } }] },
      { tools: [{ name: 'computer_observe', args: { app: 'zenity' } }] },
      // The ref the observation gave the OK button: the first OK after the observation's envelope in the request (tool
      // descriptions carry an example ref of their own), not a number fixed here.
      { tools: [{ name: 'computer_pointer', args: { app: 'zenity', ref: '<<request:(?<=untrusted source=.{0,2}app zenity[^<]*.)e[0-9]+(?=. push button [^A-Za-z]+OK[^A-Za-z])>>', action: 'click' } }] },
      { text: ['Clicked OK.'] },
    ]);
    const page = await deskhand.start({ env: { DISPLAY: world.display, DBUS_SESSION_BUS_ADDRESS: world.env.DBUS_SESSION_BUS_ADDRESS!, XDG_SESSION_TYPE: 'x11', WAYLAND_DISPLAY: null, NO_AT_BRIDGE: null } });
    await deskhand.newConversation('Desktop');
    await deskhand.send('Answer the zenity dialog');

    await page.getByRole('region', { name: 'Ask to use an app' }).getByRole('button', { name: 'Grant' }).click();
    const approval = page.getByRole('region', { name: 'Click in an app' });
    await expect(approval).toContainText('click push button "OK" in zenity', { timeout: 30_000 });
    await approval.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByText('Clicked OK.')).toBeVisible({ timeout: 30_000 });
    expect(await zenity.exited).toBe(0);
    expect(zenity.stdout()).toBe('Ada\n');

    const card = page.getByRole('article', { name: 'Tool call computer_pointer: done' });
    await card.getByRole('button').first().click();
    const shots = card.getByLabel('Screenshots of computer_pointer');
    await expect(shots.getByRole('img', { name: /^Before \d+-before\.png$/ })).toBeVisible();
    await expect(shots.getByRole('img', { name: /^After \d+-after\.png$/ })).toBeVisible();
    await expect(shots.locator('figcaption')).toHaveText(['Before', 'After']);
    // Real PNGs of the window, not placeholders.
    const size = await shots.getByRole('img').first().evaluate((img) => [(img as unknown as { naturalWidth: number }).naturalWidth, (img as unknown as { naturalHeight: number }).naturalHeight]);
    expect(size[0]).toBeGreaterThan(50);
    expect(size[1]).toBeGreaterThan(50);
    await card.screenshot({ path: artifact(`${deskhand.kind}-computer-tool-card.png`) });
  } finally {
    await world.close();
  }
});
