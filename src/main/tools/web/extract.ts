/**
 * A fetched body decoded in its charset (Content-Type, byte-order mark, <meta>, XML declaration, else UTF-8 with a
 * windows-1252 fallback), for web_fetch and http_request. Page extraction (Readability, linkedom, turndown: several
 * hundred modules) lives in page-extract.ts and loads on the first page extracted, so a process that never fetches a
 * page (`deskhand policy explain`, `runs list`) never loads it.
 */
import { TextDecoder } from 'node:util';

function charsetOf(contentType: string | undefined): string | null {
  const m = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : null;
}

function decoderFor(label: string | null): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

/** Decodes a body by the charset it declares, or sniffs; returns the text and the charset used. */
export function decodeBody(body: Buffer, contentType: string | undefined): { text: string; charset: string } {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(body.subarray(3)), charset: 'utf-8' };
  if (body[0] === 0xff && body[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(body.subarray(2)), charset: 'utf-16le' };
  if (body[0] === 0xfe && body[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(body.subarray(2)), charset: 'utf-16be' };
  const declared = decoderFor(charsetOf(contentType));
  if (declared) return { text: declared.decode(body), charset: declared.encoding };
  const head = body.subarray(0, 4096).toString('latin1');
  const meta =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head) ?? /<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  const sniffed = decoderFor(meta ? meta[1]!.toLowerCase() : null);
  if (sniffed) return { text: sniffed.decode(body), charset: sniffed.encoding };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), charset: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(body), charset: 'windows-1252' };
  }
}

