/**
 * The browser's egress through the real runtime (createAppRuntime: store, approval engine, the app's Chromium) and the
 * scripted model server:
 * - a conversation opens a page (its loopback navigation approved by the person) whose script and worker open
 *   WebSockets to a loopback port nobody approved: the listener's log stays empty, and the snapshot the model is sent
 *   next shows the page saw no connection;
 * - conversation A's approval of a host:port does not cover conversation B: B's navigation there parks for its own
 *   approval (a private-destination reason), and the site hears nothing from B before it is answered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { findChromium } from '../../src/main/services/chromium/index';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { reply, startModelServer, type ModelServer, type OpenAIChatRequest, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { startTcpListener, type TcpListener } from './egress-listeners';
import { startSite, type Site } from './site';

let model: ModelServer;
let site: Site;
let listener: TcpListener;
let dataDir: string;
const runtimes: AppRuntime[] = [];

beforeEach(async () => {
  model = await startModelServer();
  site = await startSite();
  listener = await startTcpListener();
  dataDir = tempDir('deskhand-data-');
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) {
    await r.shutdownServices();
    r.store.close();
  }
  await Promise.all([model.close(), site.close(), listener.close()]);
});

function runtime(): AppRuntime {
  const r = createAppRuntime({ dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  runtimes.push(r);
  return r;
}

const provider = (): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' });

function toolMessages(req: RecordedRequest): string[] {
  const messages = (req.body as OpenAIChatRequest).messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

describe.skipIf(!findChromium())('browser egress through the runtime', () => {
  it("a page's WebSockets (page and worker) to a never-approved loopback port reach nothing; the model is told what the page saw", async () => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'high-risk' });
    rt.setFamilies(conv.id, ['browser'], true); // the browser is off until enabled, as a person enables it
    let step = 0;
    model.setFallback((req) => {
      const snap = toolMessages(req).find((m) => m.includes('Refs: '));
      // Snapshot again until both probes have settled on the page.
      if (step >= 2 && snap && /waiting/.test(toolMessages(req).at(-1) ?? '') && step < 20) {
        step++;
        return reply().tool('browser_snapshot', {});
      }
      const plan = [() => reply().tool('browser_navigate', { url: `${site.origin}/socket?port=${listener.port}` }), () => reply().tool('browser_snapshot', {})];
      return (plan[step++] ?? (() => reply().text('done')))();
    });
    const parked = await rt.sendMessage(conv.id, 'open the page', { provider: provider(), interactive: false });
    expect(parked.status).toBe('parked');
    const done = await rt.decideApproval(parked.approvalIds[0]!, { approved: true }, { provider: provider(), interactive: false });
    expect(done?.status).toBe('finished');
    const last = toolMessages(model.requests.at(-1)!).at(-1)!;
    expect(last).toMatch(/page: (error|closed:\d+)/);
    expect(last).toMatch(/worker: (error|closed:\d+)/);
    expect(last).not.toContain('open:');
    expect(listener.log).toEqual([]);
  }, 120_000);

  it("conversation A's approval does not cover conversation B: B parks for its own, and the site hears nothing from B", async () => {
    const rt = runtime();
    const url = `${site.origin}/a`;
    model.setFallback((req) => (toolMessages(req).length ? reply().text('done') : reply().tool('browser_navigate', { url })));
    const a = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'high-risk' });
    rt.setFamilies(a.id, ['browser'], true); // the browser is off until enabled, as a person enables it
    const askedA = await rt.sendMessage(a.id, 'open A', { provider: provider(), interactive: false });
    expect(askedA.status).toBe('parked');
    expect(await rt.decideApproval(askedA.approvalIds[0]!, { approved: true }, { provider: provider(), interactive: false }).then((o) => o?.status)).toBe('finished');
    const seen = site.log.length;
    expect(seen).toBeGreaterThan(0);

    // B, while A's session is still open, asks for the same host:port.
    const b = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'high-risk' });
    rt.setFamilies(b.id, ['browser'], true); // the browser is off until enabled, as a person enables it
    const askedB = await rt.sendMessage(b.id, 'open B', { provider: provider(), interactive: false });
    expect(askedB.status).toBe('parked');
    const approval = rt.store.getApproval(askedB.approvalIds[0]!)!;
    expect(approval.tool).toBe('browser_navigate');
    expect(JSON.stringify(approval.reasons)).toMatch(/private destination 127\.0\.0\.1:\d+ \[127\.0\.0\.1\].*loopback/);
    expect(site.log.length).toBe(seen);
  }, 120_000);
});
