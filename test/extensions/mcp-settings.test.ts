/**
 * Settings → MCP and the profile selector through the contract (dispatch parses params as both transports do): a
 * stdio server added from a command line connects at once and its tools reach the registry (toolsChanged); a broken
 * one is listed with its error and stderr tail; bad input is refused in words; a conversation's profile is chosen
 * and its policy and sandbox applied.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createDispatch, type Dispatch } from '../../src/main/host/app/dispatch';
import { splitCommandLine } from '../../src/main/host/app/groups/extensions';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from '../host/helpers';
import { EVERYTHING, FAKE } from './helpers';

let h: Harness;
let dispatch: Dispatch;
const call = (method: string, params: unknown) => dispatch(method, params, { source: 'test', bytes: 100 });

beforeEach(() => {
  h = openHarness({ dataDir: tempDir('deskhand-mcpsettings-') });
  dispatch = createDispatch(h.service, h.log);
});
afterEach(async () => {
  await h.runtime.mcp.close();
  h.close();
});

it('adds servers from Settings: a working one connects with its tools, a broken one shows its error and stderr tail', async () => {
  const added = (await call('addMcpServer', { name: 'everything', transport: 'stdio', command: EVERYTHING, tier: 'read-only' })) as { ok: boolean; result: { servers: { name: string; status: string; tools: number }[] } };
  expect(added.ok).toBe(true);
  expect(added.result.servers[0]).toMatchObject({ name: 'everything', status: 'connected', tier: 'read-only' });
  expect(added.result.servers[0]!.tools).toBeGreaterThan(5);
  expect(h.events.some((e) => e.event === 'toolsChanged')).toBe(true);
  const tools = (await h.service.listTools()) as unknown as { tools: { name: string; kind: string }[] };
  expect(tools.tools.find((t) => t.name === 'mcp__everything__echo')).toMatchObject({ kind: 'mcp' });

  const broken = (await call('addMcpServer', { name: 'broken', transport: 'stdio', command: `${process.execPath} "${FAKE}" crash-now` })) as { ok: boolean; result: { servers: Record<string, unknown>[] } };
  const row = broken.result.servers.find((s) => s.name === 'broken')!;
  expect(row.status).toBe('failed');
  expect(String(row.lastError)).toMatch(/exited \(code 2\)|closed/);
  expect(String(row.stderrTail)).toContain('fatal: could not open database');

  const bad = (await call('addMcpServer', { name: 'no_underscores', transport: 'stdio', command: 'x' })) as { ok: boolean; error: { message: string } };
  expect(bad.ok).toBe(false);
  expect(bad.error.message).toContain('a server name is 1–40 letters, digits or dashes');
  const noUrl = (await call('addMcpServer', { name: 'web', transport: 'http', url: 'ftp://x' })) as { ok: boolean; error: { message: string } };
  expect(noUrl.error.message).toContain('url must be an http:// or https:// URL');

  const removed = (await call('removeMcpServer', { name: 'everything' })) as { result: { servers: { name: string }[] } };
  expect(removed.result.servers.map((s) => s.name)).toEqual(['broken']);
  expect(((await h.service.listTools()) as unknown as { tools: { name: string }[] }).tools.some((t) => t.name.startsWith('mcp__everything__'))).toBe(false);
}, 60_000);

it('chooses a conversation\'s agent profile: its policy and sandbox become the conversation\'s', async () => {
  h.runtime.profiles.put({ name: 'careful', policy: 'none', sandbox: 'read-only', deniedTools: ['execute_command'] });
  const conv = h.runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'high-risk' });
  const before = (await call('listProfiles', { conversationId: conv.id })) as { result: { current: string | null; profiles: { name: string }[] } };
  expect(before.result).toMatchObject({ current: null, profiles: [{ name: 'careful' }] });
  const set = (await call('setConversationProfile', { conversationId: conv.id, profile: 'careful' })) as { result: { current: string } };
  expect(set.result.current).toBe('careful');
  expect(h.runtime.store.getConversation(conv.id)).toMatchObject({ policy: 'none', sandbox: 'read-only' });
  const missing = (await call('setConversationProfile', { conversationId: conv.id, profile: 'nobody' })) as { ok: boolean; error: { message: string } };
  expect(missing.error.message).toContain('No agent profile "nobody"');
});

it('splits command lines with quotes', () => {
  expect(splitCommandLine(`npx -y "@scope/pkg name" 'a b' c\\d`)).toEqual(['npx', '-y', '@scope/pkg name', 'a b', 'c\\d']);
});
