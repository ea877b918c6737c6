/**
 * What a Stop hook says reaches the person, never as the model's text nor as the person's words (docs/hooks.md "What
 * the person sees"): through the built binary, `deskhand run` prints a Stop hook's reason and the hooks' notes on
 * stderr, marked as the hooks' (stdout, the model's text, never holds them); `deskhand conversations export` puts each
 * under its hook's heading, never under "You"; `deskhand acp` sends them live and on `session/load` as marked agent
 * chunks, never as user message chunks. The model reads the reason and never the notes (its recorded requests).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';
import { startAcp, updatesOf } from '../support/acp';

const w = useCliWorld('hook-notes', { policy: 'high-risk' });
const NODE = JSON.stringify(process.execPath);

/**
 * The person's Stop hook: the first stop is blocked with a reason and a systemMessage; the next one fails (exit 1),
 * which leaves a line for the person.
 */
function stopHook(): void {
  const path = join(w.home, 'stop.js');
  writeFileSync(
    path,
    `const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
if (!input.stop_hook_active) process.stdout.write(JSON.stringify({ decision: 'block', reason: 'Keep-Going-Ht4: run the tests too', systemMessage: 'Note-For-You-Nv8' }));
else { process.stderr.write('Stop-Broken-Qc2'); process.exit(1); }\n`,
  );
  writeFileSync(join(w.dataDir, 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `${NODE} ${JSON.stringify(path)}` }] }] } }));
}

const MARKERS = ['Keep-Going-Ht4', 'Note-For-You-Nv8', 'Stop-Broken-Qc2'];

/** The last `## ` heading above the first place `marker` appears in the Markdown. */
function sectionOf(markdown: string, marker: string): string {
  const at = markdown.indexOf(marker);
  expect(at, `${marker} in the export`).toBeGreaterThan(-1);
  return [...markdown.slice(0, at).matchAll(/^## (.+)$/gm)].at(-1)?.[1] ?? '';
}

/** The model's requests carry the reason (its next message) and never a note. */
function expectModelSaw(): void {
  const sent = w.server.requests.map((r) => JSON.stringify(r.body));
  expect(sent[1]).toContain('Keep-Going-Ht4');
  for (const body of sent) for (const note of ['Note-For-You-Nv8', 'Stop-Broken-Qc2']) expect(body).not.toContain(note);
}

it('deskhand run prints them on stderr as the hooks\' (stdout is the model\'s text only); the export puts each under its hook, none under You', async () => {
  stopHook();
  w.server.enqueue(reply().text('first done'), reply().text('really done'));
  const r = await w.cli(['run', '--provider', 'openai', '--base-url', w.server.baseURL, '--model', 'm', '--cwd', w.work, '--data-dir', w.dataDir, '--policy', 'high-risk', 'go']);
  expect(r.code, r.stderr).toBe(0);
  expectModelSaw();
  expect(r.stdout).toContain('first done');
  expect(r.stdout).toContain('really done');
  for (const m of MARKERS) expect(r.stdout).not.toContain(m);
  const lines = r.stderr.split('\n');
  // The reason names the hook that gave it, as the model reads it.
  expect(lines.find((l) => l.includes('Keep-Going-Ht4'))).toMatch(/^⚑ Stop hook, sent the agent back to work: Stop hook `[^`]*stop\.js[^`]*`: Keep-Going-Ht4: run the tests too$/);
  expect(lines).toContain('⚑ Stop hooks, a note for you (the agent did not read it): Note-For-You-Nv8');
  expect(lines.find((l) => l.includes('Stop-Broken-Qc2'))).toMatch(/^⚑ Stop hooks, a note for you \(the agent did not read it\): hook `[^`]*stop\.js[^`]*` failed \(exit 1\): Stop-Broken-Qc2; ignored$/);

  const conversationId = /\(conversation (conv_[\w-]+):/.exec(r.stderr)?.[1];
  expect(conversationId, r.stderr).toBeDefined();
  const exported = await w.cli(['conversations', 'export', conversationId!, '--data-dir', w.dataDir]);
  expect(exported.code, exported.stderr).toBe(0);
  const md = exported.stdout;
  expect(sectionOf(md, 'Keep-Going-Ht4')).toBe('Stop hook (sent the agent back to work)');
  expect(sectionOf(md, 'Note-For-You-Nv8')).toBe('Stop hooks (a note; the agent did not read it)');
  expect(sectionOf(md, 'Stop-Broken-Qc2')).toBe('Stop hooks (a note; the agent did not read it)');
  // "You" said "go", and only that.
  const you = [...md.matchAll(/^## You\n\n([\s\S]*?)(?=^## )/gm)].map((m) => m[1]!.replace(/<sub>.*<\/sub>/g, '').trim());
  expect(you).toEqual(['go']);
}, 120_000);

it('deskhand acp sends them live and on session/load as marked agent chunks, never as user message chunks', async () => {
  stopHook();
  w.server.enqueue(reply().text('first done'), reply().text('really done'));
  const acp = await startAcp(w);
  const { sessionId } = await acp.agent.request('session/new', { cwd: w.work, mcpServers: [] });
  expect((await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })).stopReason).toBe('end_turn');
  expectModelSaw();
  const live = acp.agentText();
  expect(live).toMatch(/\(From the Stop hook, which sent the agent back to work: Stop hook `[^`]*`: Keep-Going-Ht4: run the tests too\)/);
  expect(live).toContain('(From the Stop hooks, a note for you (the agent did not read it): Note-For-You-Nv8)');
  expect(live).toMatch(/\(From the Stop hooks, a note for you \(the agent did not read it\): hook `[^`]*` failed \(exit 1\): Stop-Broken-Qc2; ignored\)/);
  expect(updatesOf(acp, 'user_message_chunk')).toEqual([]);
  expect(await acp.close()).toBe(0);

  const again = await startAcp(w);
  await again.agent.request('session/load', { sessionId, cwd: w.work, mcpServers: [] });
  expect(updatesOf(again, 'user_message_chunk').map((u) => (u.content as { text: string }).text)).toEqual(['go']);
  const replayed = again.agentText();
  expect(replayed).toMatch(/\(From the Stop hook, which sent the agent back to work: Stop hook `[^`]*`: Keep-Going-Ht4: run the tests too\)/);
  expect(replayed).toContain('(From the Stop hooks, a note for you (the agent did not read it): Note-For-You-Nv8)');
  expect(replayed).toContain('Stop-Broken-Qc2');
  expect(await again.close()).toBe(0);
}, 150_000);
