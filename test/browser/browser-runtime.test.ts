/**
 * The browser family through the real runtime (createAppRuntime: SQLite store, approval engine, the app's Chromium)
 * and the scripted model server, whose "model" reads each snapshot it is sent and picks refs from it:
 * - a conversation fills and submits a local form by refs, and the server receives exactly those values; the
 *   loopback navigation asked first (nothing reached the server before the approval), and a later navigation to the
 *   same host:port did not ask again;
 * - a run that parks closes its browser (the process table has no Chromium of that profile), and when a second
 *   runtime resumes it, the page is reopened and the model is told it was reloaded.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { processesUsingProfile } from '../../src/main/services/browser/browser-process';
import { findChromium } from '../../src/main/services/chromium/index';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { reply, startModelServer, type ModelServer, type OpenAIChatRequest, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { startSite, type Site } from './site';

let model: ModelServer;
let site: Site;
let dataDir: string;
let work: string;
const runtimes: AppRuntime[] = [];

beforeEach(async () => {
  model = await startModelServer();
  site = await startSite();
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) {
    await r.shutdownServices();
    r.store.close();
  }
  await Promise.all([model.close(), site.close()]);
});

function runtime(): AppRuntime {
  const r = createAppRuntime({ dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  runtimes.push(r);
  return r;
}

const provider = (): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' });
const profileDir = () => join(dataDir, 'browser', 'profiles');

function toolMessages(req: RecordedRequest): string[] {
  const messages = (req.body as OpenAIChatRequest).messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

/** The ref on the first outline line matching `re` in the latest snapshot the model was sent. */
function refIn(req: RecordedRequest, re: RegExp): string {
  const snap = toolMessages(req)
    .filter((m) => m.includes('Refs: '))
    .at(-1);
  const line = snap?.split('\n').find((l) => re.test(l));
  const m = line && /\[((?:f\d+)?e\d+)\]/.exec(line);
  if (!m) throw new Error(`the model found no ref for ${re}`);
  return m[1]!;
}

/** A model that fills the sign-up form by refs: each step is chosen from what the conversation holds. */
function formFiller(
  name: string,
  colour: string,
  after: { tool: string; args: unknown }[] = [],
  password?: string,
): (req: RecordedRequest) => ReturnType<typeof reply> {
  let step = 0;
  return (req) => {
    const plan = [
      // The browser is off in a new conversation: the model loads it as a real one would.
      () => reply().tool('search_tools', { query: 'browser' }),
      () => reply().tool('browser_navigate', { url: `${site.origin}/form` }),
      () => reply().tool('browser_snapshot', {}),
      () => reply().tool('browser_act', { ref: refIn(req, /textbox "Full name"/), action: 'fill', value: name }),
      () => reply().tool('browser_act', { ref: refIn(req, /combobox/), action: 'select', value: colour }),
      () => reply().tool('browser_act', { ref: refIn(req, /checkbox "I agree"/), action: 'check' }),
      ...(password ? [() => reply().tool('browser_act', { ref: refIn(req, /textbox "Password"/), action: 'fill', value: password })] : []),
      () => reply().tool('browser_act', { ref: refIn(req, /button "Send"/), action: 'click' }),
      ...after.map((a) => () => reply().tool(a.tool, a.args)),
      () => reply().text('done'),
    ];
    return plan[Math.min(step++, plan.length - 1)]!();
  };
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Outcome = Awaited<ReturnType<AppRuntime['sendMessage']>>;

/**
 * Approves, one by one, the asks a tainted run makes for browser_act (each one sends data to the page, so each asks
 * under every policy once the run has read a page) until the run parks on an ask `stop` picks, or finishes. Every ask
 * it approves must give the taint as its reason, and none may treat the site as a new private destination.
 */
async function approveTaintedActs(rt: AppRuntime, from: Outcome | null, stop: (a: NonNullable<ReturnType<AppRuntime['store']['getApproval']>>) => boolean): Promise<{ outcome: Outcome | null; acts: number }> {
  let outcome = from;
  let acts = 0;
  while (outcome?.status === 'parked') {
    const ask = rt.store.getApproval(outcome.approvalIds[0]!)!;
    if (stop(ask)) break;
    expect(ask.tool).toBe('browser_act');
    expect(ask.reasons).toContain('this run has read untrusted content, so a call that sends data out of Deskhand asks at every tier');
    expect(ask.reasons).not.toContain('private destination');
    acts++;
    outcome = await rt.decideApproval(ask.id, { approved: true }, { provider: provider(), interactive: false });
  }
  return { outcome, acts };
}

const offered = (req: RecordedRequest): string[] => ((req.body as OpenAIChatRequest).tools ?? []).map((t) => t.function.name);

describe.skipIf(!findChromium())('browser family through the runtime', () => {
  it('a run that needs the browser loads it through search_tools: its schemas reach the model only after the search, and the run completes', async () => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    model.enqueue(
      reply().tool('browser_navigate', { url: `${site.origin}/a` }),
      reply().tool('search_tools', { query: 'browser' }),
      reply().tool('browser_navigate', { url: `${site.origin}/a` }),
      reply().text('Page A is open.'),
    );
    const parked = await rt.sendMessage(conv.id, 'open page A in the browser', { provider: provider(), interactive: false });
    expect(parked.status).toBe('parked');
    // Request 1 (the first): no browser schema, the family listed by name in the system prompt.
    expect(offered(model.requests[0]!)).not.toContain('browser_navigate');
    expect(offered(model.requests[0]!)).toContain('search_tools');
    expect(JSON.stringify((model.requests[0]!.body as OpenAIChatRequest).messages[0])).toMatch(/browser \(off until loaded\).*browser_navigate/);
    // The call before the search was refused with what to do, and nothing reached the site.
    expect(toolMessages(model.requests[1]!)[0]).toMatch(/browser_navigate belongs to the browser tools, which are off in this conversation\. Call search_tools with the query "browser"/);
    expect(offered(model.requests[1]!)).not.toContain('browser_navigate');
    // After the search: every browser tool's schema is offered.
    expect(toolMessages(model.requests[2]!).at(-1)).toMatch(/browser_navigate \[revealed: callable from your next step\]/);
    expect(offered(model.requests[2]!)).toEqual(expect.arrayContaining(['browser_navigate', 'browser_snapshot', 'browser_act', 'browser_tabs']));
    expect(site.log).toEqual([]);
    const done = await rt.decideApproval(parked.approvalIds[0]!, { approved: true }, { provider: provider(), interactive: false });
    expect(done?.status).toBe('finished');
    expect(site.log.map((l) => l.url)).toContain('/a');
    expect(rt.store.toolCallsForRun(parked.runId).filter((c) => c.tool === 'browser_navigate').at(-1)!.output).toContain('Title: Page A');
    // Loaded for the conversation: its next turn offers the browser from the first request.
    model.enqueue(reply().text('still here'));
    await rt.sendMessage(conv.id, 'thanks', { provider: provider(), interactive: false });
    expect(offered(model.requests.at(-1)!)).toContain('browser_navigate');
  }, 120_000);

  it('a conversation with the browser enabled offers its schemas from the first request', async () => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    rt.setFamilies(conv.id, ['browser'], true);
    model.enqueue(reply().text('ready'));
    await rt.sendMessage(conv.id, 'hello', { provider: provider(), interactive: false });
    expect(offered(model.requests[0]!)).toContain('browser_navigate');
    expect(offered(model.requests[0]!)).not.toContain('computer_observe');
    expect(JSON.stringify((model.requests[0]!.body as OpenAIChatRequest).messages[0])).not.toMatch(/browser \(off until loaded\)/);
  }, 60_000);

  it('fills and submits a local form by refs; the server receives exactly the values; loopback asks once per session', async () => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    model.setFallback(formFiller('Grace Hopper', 'Blue', [{ tool: 'browser_navigate', args: { url: `${site.origin}/a` } }]));

    const parked = await rt.sendMessage(conv.id, 'sign me up', { provider: provider(), interactive: false });
    expect(parked.status).toBe('parked');
    const approval = rt.store.getApproval(parked.approvalIds[0]!)!;
    expect(approval.tool).toBe('browser_navigate');
    expect(JSON.stringify(approval.reasons)).toMatch(/private destination 127\.0\.0\.1:\d+ \[127\.0\.0\.1\].*loopback/);
    expect(site.log).toEqual([]);

    const first = await rt.decideApproval(approval.id, { approved: true }, { provider: provider(), interactive: false });
    // The run has read the form page: fill, select, check and click each send data to it, so each asks (taint).
    const { outcome: next, acts } = await approveTaintedActs(rt, first, (a) => a.tool !== 'browser_act');
    expect(acts).toBe(4);
    expect(site.submissions.map((s) => Object.fromEntries(s))).toEqual([{ name: 'Grace Hopper', password: '', colour: 'Blue', terms: 'yes' }]);
    // The later navigation to the same host:port asks only because the run read a page (taint), not as a private destination.
    expect(next?.status).toBe('parked');
    const again = rt.store.getApproval(next!.approvalIds[0]!)!;
    expect(again.tool).toBe('browser_navigate');
    expect(again.reasons).toContain('this run has read untrusted content');
    expect(again.reasons).not.toContain('private destination');
    const done = await rt.decideApproval(again.id, { approved: true }, { provider: provider(), interactive: false });
    expect(done?.status).toBe('finished');
    expect(site.submissions.map((s) => Object.fromEntries(s))).toEqual([{ name: 'Grace Hopper', password: '', colour: 'Blue', terms: 'yes' }]);
    // The later navigation to the same host:port ran without asking; its page was read.
    const calls = rt.store.toolCallsForRun(parked.runId);
    const lastNav = calls.filter((c) => c.tool === 'browser_navigate').at(-1)!;
    expect(lastNav.output).toContain('Title: Page A');
    expect(site.log.map((l) => l.url)).toContain('/a');
    // Page content reached the model inside the untrusted envelope.
    expect(toolMessages(model.requests.at(-1)!).find((m) => m.includes('Refs: '))).toMatch(/^<untrusted source="browser http:\/\/127\.0\.0\.1:\d+\/form"/);
  }, 120_000);

  it('a parked run closes its browser; resumed by another runtime, the page is reopened, the form typed again and the model told', async () => {
    const first = runtime();
    const conv = first.createConversation({ folder: work, policy: 'high-risk' });
    model.setFallback(formFiller('Alan Turing', 'Red', [], 'enigma'));

    const asked = await first.sendMessage(conv.id, 'sign me up', { provider: provider(), interactive: false });
    const navigated = await first.decideApproval(asked.approvalIds[0]!, { approved: true }, { provider: provider(), interactive: false });
    // Name, colour and terms each ask because the run read the page (taint); they are approved.
    const { outcome: parked, acts } = await approveTaintedActs(first, navigated, (a) => /Password/.test(a.description ?? ''));
    expect(acts).toBe(3);
    // Filling a password field with text the model wrote asks under every policy, for its own reason: the run parks there.
    expect(parked?.status).toBe('parked');
    const pw = first.store.getApproval(parked!.approvalIds[0]!)!;
    expect(pw.tool).toBe('browser_act');
    expect(pw.reasons).toContain('filling a password field with text the model wrote: always asks');
    expect(pw.reasons).toContain('this run has read untrusted content');
    expect(pw.description).toMatch(/^Fill textbox "Password" \(e\d+\) on http:\/\/127\.0\.0\.1:\d+\/form: "enigma"$/);
    // Parking closed the browser: no process of its profile is left.
    await until(() => processesUsingProfile(profileDir()).length === 0);
    expect(existsSync(join(dataDir, 'browser', 'parked', `${conv.id}.json`))).toBe(true);

    // Another runtime over the same data folder (as `deskhand runs approve` would be) approves it.
    const second = runtime();
    const resumed = await second.decideApproval(pw.id, { approved: true }, { provider: provider(), interactive: false });
    // The click on Send asks too (taint); approved in the second runtime, the run finishes.
    const { outcome, acts: more } = await approveTaintedActs(second, resumed, () => false);
    expect(more).toBe(1);
    expect(outcome?.status).toBe('finished');
    const told = model.requests.flatMap((r) => toolMessages(r)).find((m) => /reloaded/.test(m));
    expect(told).toMatch(/The browser was closed while this run waited, and the pages were reloaded \("main" http:\/\/127\.0\.0\.1:\d+\/form\)/);
    expect(told).toContain('looks as before, so its refs still hold');
    expect(site.submissions.map((s) => Object.fromEntries(s))).toEqual([{ name: 'Alan Turing', password: 'enigma', colour: 'Red', terms: 'yes' }]);
  }, 120_000);
});
