/**
 * Settings → Browser: the sites kept signed in, as the person types them (URLs, subdomains, ports) turned into the
 * sites the browser service keeps, refused clearly when they name no site, accepted by the settings schema that
 * saveSettings parses, and shown in the Settings form.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BrowserSettings, addKeptSite } from '../../src/renderer/components/settings/BrowserSettings';
import { isKeptHost, parseKeptSite } from '../../src/shared/browser-sites';
import { settingsSchema, type Settings } from '../../src/shared/contract';

describe('sites kept signed in', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM ', 'example.com'],
    ['https://mail.example.com/inbox?x=1', 'mail.example.com'],
    ['.example.com', 'example.com'],
    ['example.com:8443', 'example.com'],
    ['example.com/path', 'example.com'],
    ['127.0.0.1', '127.0.0.1'],
    ['localhost', 'localhost'],
    ['[::1]', '::1'],
  ])('%j keeps %s', (input, site) => {
    expect(parseKeptSite(input)).toEqual({ ok: true, site });
  });

  it.each(['', '   ', 'com', 'not a host', 'exa_mple.com', '-bad.com', 'http://', 'a..b'])('%j is refused with a reason', (input) => {
    const r = parseKeptSite(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason.length).toBeGreaterThan(3);
  });

  it.each([
    ['example.com', true],
    ['.example.com', true],
    ['www.example.com', true],
    ['a.b.example.com', true],
    ['notexample.com', false],
    ['example.com.evil.test', false],
    ['example.org', false],
  ])('a cookie of %s belongs to kept example.com: %s', (host, kept) => {
    expect(isKeptHost(host, ['example.com'])).toBe(kept);
  });

  it('adds each site once and says why not otherwise', () => {
    expect(addKeptSite([], 'https://Example.com/')).toEqual({ ok: true, list: ['example.com'] });
    expect(addKeptSite(['example.com'], 'example.com:443')).toEqual({ ok: false, reason: 'example.com is already kept' });
    expect(addKeptSite([], 'nope')).toMatchObject({ ok: false });
  });

  it('is part of the settings saveSettings parses; a bad entry is refused', () => {
    const shape = settingsSchema.shape.browser;
    expect(shape.parse({ keepSignedIn: ['example.com', 'mail.example.org'] })).toEqual({ keepSignedIn: ['example.com', 'mail.example.org'] });
    expect(shape.safeParse({ keepSignedIn: ['not a host'] }).success).toBe(false);
  });

  it('shows the kept sites in the Settings form with a way to remove each', () => {
    const draft = { browser: { keepSignedIn: ['example.com', 'github.com'] } } as unknown as Settings;
    const html = renderToStaticMarkup(createElement(BrowserSettings, { draft, setDraft: () => undefined }));
    expect(html).toContain('<legend>Browser</legend>');
    expect(html).toContain('<code>example.com</code>');
    expect(html).toContain('aria-label="Stop keeping github.com signed in"');
    const none = renderToStaticMarkup(createElement(BrowserSettings, { draft: {} as Settings, setDraft: () => undefined }));
    expect(none).toContain('None: every site is signed out when a session ends.');
  });
});
