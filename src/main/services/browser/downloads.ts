/**
 * A page's download: saved only while browser_act runs a click that downloads (into the folder the act names, never
 * over a file there), else cancelled; either way the model is told in the session's notes.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Download } from 'playwright-core';
import type { Session } from './browser-session';

export async function saveDownload(session: Session, download: Download): Promise<void> {
    const name = basename(download.suggestedFilename()).replace(/^\.+/, '_') || 'download';
    const dir = session.acting?.downloadDir;
    if (!dir) {
      await download.cancel().catch(() => undefined);
      session.notes.push(`The page offered a download (${name}); it was not saved: downloads are saved only by browser_act (a click that downloads).`);
      return;
    }
    mkdirSync(dir, { recursive: true });
    let target = join(dir, name);
    for (let i = 2; existsSync(target); i++) target = join(dir, name.replace(/(\.[^.]*)?$/, (ext) => ` (${i})${ext}`));
    try {
      await download.saveAs(target);
      session.notes.push(`Downloaded ${name} to ${target} (${statSync(target).size} bytes).`);
    } catch (err) {
      session.notes.push(`The download of ${name} failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
