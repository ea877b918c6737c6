/**
 * `readBrowserScreenshot` (the PNG a browser_screenshot tool card shows): main reads only the path the call itself
 * printed, and only inside `<data>/browser/screenshots/<that conversation>/`. A forged output, a PNG of another
 * conversation, a link out of the folder or a call that saved nothing is refused; the right file comes back byte for
 * byte. No Chromium needed: the rows are what the tool writes.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Jimp from 'jimp';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openHarness, type Harness } from '../host/helpers';
import { tempDir } from '../support/tool-context';

let h: Harness;
let dataDir: string;
let png: Buffer;
let n = 0;

beforeEach(async () => {
  dataDir = tempDir('deskhand-shot-data-');
  h = openHarness({ dataDir });
  png = await new Jimp(40, 20, 0x22aa66ff).getBufferAsync(Jimp.MIME_PNG);
});
afterEach(() => h.close());

/** A finished tool call of `tool` in a new run of the conversation, with this output; returns its ids. */
function call(conversationId: string, tool: string, output: string) {
  const runId = `run_t${++n}`;
  h.store.createRun({ id: runId, conversation_id: conversationId, policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  h.store.insertToolCall({ id: `tc${n}`, run_id: runId, step: 1, position: 0, call_id: `call_${n}`, tool, args: '{}', args_sha256: 'x', risk: 'low-risk', decision: 'allow', reasons: '[]', status: 'done' });
  h.store.updateToolCall(`tc${n}`, { status: 'done', output });
  return { conversationId, runId, callId: `call_${n}` };
}

const shotLine = (path: string) => `Tab main: Page — http://127.0.0.1/\nScreenshot: ${path} (123 bytes, PNG)`;

it('returns the PNG the call saved, and nothing else', async () => {
  const conv = h.runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  const other = h.runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  const dir = join(dataDir, 'browser', 'screenshots', conv.id);
  const otherDir = join(dataDir, 'browser', 'screenshots', other.id);
  mkdirSync(dir, { recursive: true });
  mkdirSync(otherDir, { recursive: true });
  writeFileSync(join(dir, '1-call.png'), png);

  const ok = await h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(join(dir, '1-call.png'))));
  expect(Buffer.from(ok.dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64').equals(png)).toBe(true);

  // A file anywhere else named in an output (a page can print anything; the path is checked, not trusted).
  const outside = join(tempDir('deskhand-elsewhere-'), 'secret.png');
  writeFileSync(outside, png);
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(outside)))).rejects.toThrow(/Only screenshots the browser saved/);
  // The computer family's folder, or another conversation's screenshot.
  mkdirSync(join(dataDir, 'computer'), { recursive: true });
  writeFileSync(join(dataDir, 'computer', 'a.png'), png);
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(join(dataDir, 'computer', 'a.png'))))).rejects.toThrow(/Only screenshots/);
  writeFileSync(join(otherDir, '2.png'), png);
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(join(otherDir, '2.png'))))).rejects.toThrow(/Only screenshots/);
  // A link inside the folder pointing out of it, and a climb out with `..`.
  symlinkSync(outside, join(dir, 'link.png'));
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(join(dir, 'link.png'))))).rejects.toThrow(/Only screenshots/);
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(`${dir}/../${other.id}/2.png`)))).rejects.toThrow(/Only screenshots/);
  // A call that saved nothing, a deleted file, a call of another conversation.
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_snapshot', 'heading "x"'))).rejects.toThrow(/saved no screenshot/);
  await expect(h.service.readBrowserScreenshot(call(conv.id, 'browser_screenshot', shotLine(join(dir, 'gone.png'))))).rejects.toThrow(/is gone/);
  const theirs = call(other.id, 'browser_screenshot', shotLine(join(otherDir, '2.png')));
  await expect(h.service.readBrowserScreenshot({ ...theirs, conversationId: conv.id })).rejects.toThrow(/No tool call/);
});
