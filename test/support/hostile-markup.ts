/**
 * Composition documents that spell `<head>` where a string search would find it but a browser would not (inside a
 * comment, a script string, CDATA, an attribute, raw text), or leave it out, or shout it. `SCRIPT` marks where the
 * composition's own script goes. Shared by the viewer's unit table (test/tools/compositions/viewer-injection.test.ts)
 * and the Chromium test (test/host/composition-viewer-egress.test.ts).
 */
export const HOSTILE_SPELLINGS: readonly (readonly [string, string])[] = [
  ['<head> in a comment before everything', '<!--<head>--><!doctype html><html><head><title>t</title></head><body>SCRIPT</body></html>'],
  ['<head> in a comment after the doctype', '<!doctype html><!-- <head> --><html><head><title>t</title></head><body>SCRIPT</body></html>'],
  ['a comment that opens <head> and no real head', '<!doctype html><!--<head>--><body>SCRIPT</body>'],
  ['<HEAD > in capitals with a space', '<!DOCTYPE HTML><HTML><HEAD ><TITLE>t</TITLE></HEAD><BODY>SCRIPT</BODY></HTML>'],
  ['<head in a script string first', '<!doctype html><html><script>var s = "<head>";</script><head><title>t</title></head><body>SCRIPT</body></html>'],
  ['<head> in CDATA of inline SVG', '<!doctype html><html><body><svg><![CDATA[<head>]]></svg>SCRIPT</body></html>'],
  ['no head at all', '<!doctype html><body>SCRIPT</body>'],
  ['no html, no head, no doctype', 'SCRIPT<p>plain</p>'],
  ['<head> in a title', '<!doctype html><title>&lt;<head></title><body>SCRIPT</body>'],
  ['<head> in a textarea', '<!doctype html><body><textarea><head></textarea>SCRIPT</body>'],
  ['<head> in an attribute', '<!doctype html><div title="<head>">x</div><head></head><body>SCRIPT</body>'],
  ['<head> in a doctype', '<!doctype html "<head>"><html><body>SCRIPT</body></html>'],
  ['<head> in a noscript and an xmp', '<!doctype html><noscript><head></noscript><xmp><head></xmp>SCRIPT'],
  ['<head> in a bogus comment', '<?xml <head> ?><!doctype html><body>SCRIPT</body>'],
  ['a byte order mark, then <head> in a comment', '\uFEFF<!--<head>--><html><body>SCRIPT</body></html>'],
  ['<html> in a comment, no head', '<!--<html>--><body>SCRIPT</body>'],
];
