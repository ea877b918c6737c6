/**
 * Page content for web_fetch: main content found by Readability on a linkedom DOM, turned into markdown by turndown
 * (or plain text, or the article's HTML). Links and images become absolute URLs. Loaded on first use (web-fetch.ts).
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export type PageFormat = 'markdown' | 'text' | 'html';

export interface Page {
  title: string | null;
  byline: string | null;
  published: string | null;
  content: string;
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
