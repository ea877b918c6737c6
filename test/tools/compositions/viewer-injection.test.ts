/**
 * The viewer's safeguards (the content policy meta, the prologue that removes WebRTC and WebTransport, the reporter)
 * come before anything of the composition, whatever it spells: nothing is searched for inside the document, only a
 * leading doctype may precede them, and the composition's bytes follow unchanged. The browser's side of it (no STUN
 * packet leaves) is test/host/composition-viewer-egress.test.ts, and through `deskhand web`
 * test/security/composition-webrtc-chain-e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { injectHead, VIEWER_PROLOGUE, viewerDocument } from '../../../src/main/services/compositions/index';
import { HOSTILE_SPELLINGS } from '../../support/hostile-markup';

const SCRIPT = '<script>new RTCPeerConnection()</script>';

describe('viewer document: the safeguards come first', () => {
  it.each(HOSTILE_SPELLINGS)('%s', (_name, markup) => {
    const doc = markup.replace('SCRIPT', SCRIPT);
    for (const out of [injectHead(doc), viewerDocument('html', Buffer.from(doc), 'text/html', 't')]) {
      const at = out.indexOf('<html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy"');
      expect(at).toBeGreaterThanOrEqual(0);
      // Only a doctype (and the whitespace before it) may come first: no comment, no element, no text.
      expect(out.slice(0, at)).toMatch(/^(?:[\t\n\f\r ]*<!doctype[^>]*>)?$/i);
      // The prologue is the first script of the document, and the composition's bytes follow whole.
      expect(out.indexOf('<script>')).toBe(out.indexOf(`<script>${VIEWER_PROLOGUE}</script>`));
      expect(out.indexOf('<script>')).toBeLessThan(out.indexOf(SCRIPT));
      const rest = doc.replace(/^\uFEFF/, '');
      expect(out.slice(0, at) + out.slice(out.indexOf('</head>', at) + '</head>'.length)).toBe(rest);
    }
  });

  it('a markdown page and an SVG get the safeguards first too', () => {
    const md = viewerDocument('markdown', Buffer.from('# <!--<head>--> hi\n\n<head>'), 'text/markdown', 'm');
    const svg = viewerDocument('svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><!--<head>--><script>1</script></svg>'), 'image/svg+xml', 's');
    for (const out of [md, svg]) {
      const prologue = out.indexOf(`<script>${VIEWER_PROLOGUE}</script>`);
      expect(out.slice(0, prologue)).toMatch(/^(?:<!doctype html>\n?)?<html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="[^"]*">$/i);
      expect(out.indexOf('<script>')).toBe(prologue);
    }
  });
});
