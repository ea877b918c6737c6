/**
 * web_fetch_overhead_ratio: a local 500 KB article through web_fetch to markdown (decided by the engine, pinned HTTP
 * client, charset detection, caps, Readability on linkedom, turndown, the result text) against undici + Readability +
 * turndown called directly, in the same run. The timed arm includes the engine's decision (the call's effects, then
 * `decide`, each call), as the runtime makes it before every call. Calls alternate; the ratio is taken per pair and printed as its median
 * with p10–p90. Both sides get the same bytes from the same server; the target is ≤ 1.2.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { Agent, request } from 'undici';
import { callEffects, decide } from '../src/main/runtime/decision/approval-engine';
import { PinnedHttpClient } from '../src/main/services/http/pinned-client';
import { createWebFamily } from '../src/main/tools/web';
import { makeContext, tempDir } from '../test/support/tool-context';
import { figure, paired, ratio, type BenchResult } from './lib';

const ROUNDS = 30;
const WARMUP = 3;

function article(): string {
  const parts = ['<!doctype html><html><head><meta charset="utf-8"><title>A long article</title></head><body>'];
  parts.push('<header><nav>' + Array.from({ length: 40 }, (_, i) => `<a href="/section/${i}">Section ${i}</a>`).join(' ') + '</nav></header><main><article><h1>A long article</h1>');
  let i = 0;
  while (parts.join('').length < 500 * 1024) {
    parts.push(
      `<h2>Part ${i}</h2><p>Paragraph ${i} talks about <a href="/ref/${i}">reference ${i}</a>, with <em>emphasis</em>, <strong>strong words</strong> and <code>inline code</code>. ` +
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(3) +
        `</p><ul><li>point ${i}.1</li><li>point ${i}.2</li></ul><pre><code>const x${i} = ${i};</code></pre>`,
    );
    i++;
  }
  parts.push('</article></main><aside>related links</aside><footer>footer text</footer><script>var tracking = 1;</script></body></html>');
  return parts.join('');
}

export default async function webFetchOverheadBench(): Promise<BenchResult> {
  const html = Buffer.from(article());
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(html.length) }).end(html));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/article`;
  try {
    const work = tempDir('deskhand-bench-');
    const fetchTool = createWebFamily({ http: new PinnedHttpClient(), urlGrants: () => [], search: () => null, keys: null }).tools.find((t) => t.name === 'web_fetch')!;
    const ectx = { cwd: work, workspaceRoots: [work], dataDir: work };
    const args = fetchTool.params.parse({ url });
    // The local server is a loopback destination: decided once, approved as a person would, like any private URL.
    const decision = decide({ tool: fetchTool, args, effects: await callEffects(fetchTool, args, ectx), policy: 'read-only', tainted: false, ctx: ectx });
    const ctx = { ...makeContext(work), approvedByPerson: true, decisionReasons: decision.reasons };

    const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    const direct = async (): Promise<string> => {
      // One connection per call, as web_fetch makes (its dispatcher pins the address judged for that call).
      const dispatcher = new Agent();
      const res = await request(url, { dispatcher });
      const text = await res.body.text();
      void dispatcher.close();
      const { document } = parseHTML(text);
      const parsed = new Readability(document as unknown as Document).parse();
      return turndown.turndown(parsed?.content ?? '');
    };
    // Timed: the engine's decision for this call (effects, inspectors, allow/ask/deny), then the call itself.
    const viaTool = async (): Promise<string> => {
      const d = decide({ tool: fetchTool, args, effects: await callEffects(fetchTool, args, ectx), policy: 'read-only', tainted: false, ctx: ectx });
      return (await fetchTool.execute(args as never, { ...ctx, decisionReasons: d.reasons })).output;
    };

    const a = await viaTool();
    const b = await direct();
    if (!a.includes('Paragraph 10 talks about') || !b.includes('Paragraph 10 talks about')) throw new Error('web_fetch bench: the article was not extracted');

    const t = await paired(ROUNDS, WARMUP, viaTool, direct);
    return {
      web_fetch_overhead_ratio: ratio(t.a, t.b, { baseline: 'undici + Readability + turndown called directly, same run', target: '≤ 1.2' }),
      web_fetch_500kb_ms: figure(t.a, { unit: 'ms' }),
      web_fetch_baseline_500kb_ms: figure(t.b, { unit: 'ms' }),
    };
  } finally {
    server.close();
  }
}
