/**
 * Settings → Devices → Drive another machine (issue 51, item 3) is offered where it can work: the desktop app, whose
 * bridge (`window.deskhand`) restarts it attached to the other machine (test/shell/remote-app.test.ts drives the
 * method through the real preload). A browser page (`deskhand web`, a paired phone) has no bridge and no such form.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, expect, it } from 'vitest';
import { DevicesSettings } from '../../src/renderer/components/settings/DevicesSettings';

const g = globalThis as { window?: unknown };
afterEach(() => delete g.window);

it('the desktop app offers the form, with the link field and Connect', () => {
  g.window = { deskhand: {} };
  const html = renderToStaticMarkup(createElement(DevicesSettings));
  expect(html).toContain('aria-label="Drive another machine"');
  expect(html).toContain('aria-label="Pairing link or address"');
  expect(html).toMatch(/<button type="submit"[^>]*disabled=""[^>]*>Connect<\/button>/); // nothing typed yet
});

it('a browser page does not', () => {
  g.window = {};
  const html = renderToStaticMarkup(createElement(DevicesSettings));
  expect(html).toContain('Pair a device');
  expect(html).not.toContain('Drive another machine');
});
