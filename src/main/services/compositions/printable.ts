/**
 * The HTML document one composition version prints as: create_pdf prints it, and so does the viewer's "Save as PDF"
 * and "Print" (one code path, so the person's PDF and the agent's are the same bytes for the same version and page).
 */
import type { CompositionKind } from '../store/modules/compositions';
import { markdownPage } from './markdown-html';

export function printableHtml(kind: CompositionKind, title: string, mime: string, bytes: Buffer): string {
  if (kind === 'html') return bytes.toString('utf8');
  if (kind === 'markdown') return markdownPage(bytes.toString('utf8'), title);
  if (kind === 'svg') return `<!doctype html><html><body style="margin:0">${bytes.toString('utf8').replace(/^\s*<\?xml[^>]*\?>/, '')}</body></html>`;
  return `<!doctype html><html><body style="margin:0"><img style="max-width:100%" src="data:${mime};base64,${bytes.toString('base64')}"></body></html>`;
}
