/**
 * Page content for web_fetch: the body decoded in its charset (Content-Type, byte-order mark, <meta>, XML
 * declaration, else UTF-8 with a windows-1252 fallback), main content found by Readability on a linkedom DOM, and
 * turned into markdown by turndown (or plain text, or the article's HTML). Links and images become absolute URLs.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { TextDecoder } from 'node:util';

export type PageFormat = 'markdown' | 'text' | 'html';

export interface Page {
  title: string | null;
  byline: string | null;
  published: string | null;
  content: string;
}

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

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'iframe', 'form']);

/** The page's main content in the asked format. */
export function extractPage(html: string, baseUrl: string, format: PageFormat): Page {
  const { document } = parseHTML(html);
  absolutize(document, baseUrl);
  const title = document.querySelector('title')?.textContent?.trim() || null;
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const contentHtml = article?.content ?? document.body?.innerHTML ?? html;
  let content: string;
  if (format === 'html') content = contentHtml;
  else if (format === 'text') content = normalizeText(article?.textContent ?? document.body?.textContent ?? '');
  else content = turndown.turndown(contentHtml).trim();
  return { title: article?.title?.trim() || title, byline: article?.byline ?? null, published: article?.publishedTime ?? null, content };
}

function normalizeText(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function absolutize(document: ReturnType<typeof parseHTML>['document'], baseUrl: string): void {
  let base = baseUrl;
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  if (baseHref) {
    try {
      base = new URL(baseHref, baseUrl).href;
    } catch {
      // keep the page URL
    }
  }
  for (const [selector, attr] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const el of document.querySelectorAll(selector)) {
      const value = el.getAttribute(attr);
      if (!value) continue;
      try {
        const abs = new URL(value, base);
        // javascript: and data: links carry nothing a reader can follow; keep only web links.
        if (abs.protocol === 'http:' || abs.protocol === 'https:') el.setAttribute(attr, abs.href);
        else el.removeAttribute(attr);
      } catch {
        el.removeAttribute(attr);
      }
    }
  }
}
