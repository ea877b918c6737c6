/**
 * Round three, mechanism 7: in a tainted run every call that sends data out or contacts other machines asks, at every
 * tier and under every policy, unless a URL grant covers each of its URLs; a tainted run cannot schedule its own
 * wake-ups unasked; and every reason the taint inspector gives is true of the call. The table crosses real tools
 * (http_request POST, web_fetch, browser_act, an MCP tool configured high-risk, register_trigger) and egress stubs of
 * each tier with every policy, tainted or not, with a URL grant or none, and checks the verdict AND the reason text.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { createMcpTool } from '../../src/main/tools/extensions/mcp-tools';
import { createAct } from '../../src/main/tools/browser/act';
import type { McpService } from '../../src/main/services/mcp';
import { POLICIES, policyClears, type Policy, type RiskTier } from '../../src/shared/tools';
import { tempDir } from '../support/tool-context';
import { builtinTool } from '../support/tools';

const dataDir = tempDir('deskhand-taint3-tooldata-');
const ws = tempDir('deskhand-taint3-ws-');

const stub = (name: string, risk: Exclude<RiskTier, 'unknown'>, egress: boolean, network = false): ToolDefinition =>
  defineTool({ name, description: `${name} test tool`, params: z.object({}), risk, disclosure: 'public', effects: () => ({ egress, network }), execute: async () => ({ output: 'ok' }) }) as ToolDefinition;

const never = <T extends object>(): T =>
  new Proxy({} as T, {
    get: () => {
      throw new Error('never called');
    },
  });
const browserAct = createAct({ browser: never(), dataDir, urlGrants: () => [], resolve: async () => [] }) as ToolDefinition;
const mcp = createMcpTool(
  never<McpService>(),
  { name: 'crm', transport: 'http', url: 'https://mcp.example.com/rpc', tier: 'high-risk' } as never,
  { name: 'export_contacts', description: 'exports', inputSchema: { type: 'object' } },
  false,
);

interface Case {
  what: string;
  tool: ToolDefinition;
  args: Record<string, unknown>;
  /** The tool's own tier for this call (what the policy must clear when nothing else asks). */
  tier: Exclude<RiskTier, 'unknown'>;
  /** Sends data out / contacts other machines (the taint rule applies). */
  sends: boolean;
  /** A URL grant that covers every URL of the call (null: the call has no URL a grant could cover). */
  grant: string | null;
  /** The call asks for a reason of its own, tainted or not (an MCP/approval-pair rule). */
  alwaysAsks?: boolean;
  wakes?: boolean;
}

const cases: Case[] = [
  { what: 'http_request POST', tool: builtinTool('http_request', { dataDir }), args: { method: 'POST', url: 'https://93.184.216.34/upload', body: 'notes' }, tier: 'high-risk', sends: true, grant: 'https://93.184.216.34/upload' },
  { what: 'web_fetch GET', tool: builtinTool('web_fetch', { dataDir }), args: { url: 'https://93.184.216.34/page' }, tier: 'read-only', sends: true, grant: 'https://93.184.216.34/*' },
  { what: 'browser_act click', tool: browserAct, args: { ref: 'e1', action: 'click' }, tier: 'high-risk', sends: true, grant: null },
  { what: 'MCP tool configured high-risk', tool: mcp, args: {}, tier: 'high-risk', sends: true, grant: null },
  { what: 'register_trigger', tool: builtinTool('register_trigger', { dataDir }), args: { when: '30m', prompt: 'check the page again' }, tier: 'low-risk', sends: false, grant: null, wakes: true },
  { what: 'read-only egress stub', tool: stub('send_ro', 'read-only', true), args: {}, tier: 'read-only', sends: true, grant: null },
  { what: 'low-risk egress stub', tool: stub('send_low', 'low-risk', true), args: {}, tier: 'low-risk', sends: true, grant: null },
  { what: 'high-risk egress stub', tool: stub('send_high', 'high-risk', true), args: {}, tier: 'high-risk', sends: true, grant: null },
  { what: 'high-risk network-only stub', tool: stub('net_high', 'high-risk', false, true), args: {}, tier: 'high-risk', sends: true, grant: null },
  { what: 'high-risk local stub', tool: stub('local_high', 'high-risk', false), args: {}, tier: 'high-risk', sends: false, grant: null },
  { what: 'read-only local stub', tool: stub('local_ro', 'read-only', false), args: {}, tier: 'read-only', sends: false, grant: null },
];

type Row = [string, Case, Policy, boolean, boolean];
const rows: Row[] = [];
for (const c of cases) {
  for (const policy of POLICIES) {
    for (const tainted of [false, true]) {
      for (const granted of c.grant ? [false, true] : [false]) rows.push([`${c.what} · ${policy} · ${tainted ? 'tainted' : 'clean'} · ${granted ? 'grant' : 'no grant'}`, c, policy, tainted, granted]);
    }
  }
}

describe('tainted egress asks at every tier unless a URL grant covers it; reasons are true', () => {
  it.each(rows)('%s', async (_name, c, policy, tainted, granted) => {
    const d = await decideCall({ tool: c.tool, args: c.tool.params.parse(c.args), policy, tainted, ctx: { cwd: ws, workspaceRoots: [ws], dataDir: join(ws, '..', 'no-data') }, urlGrants: granted ? [c.grant!] : [] });
    const taint = d.inspectors.find((r) => r.inspector === 'taint')!;
    const why = d.reasons.join(' | ');
    // What must hold: granted URLs are cleared by the grant (url-guard allows); otherwise the policy must clear the tier.
    const cleared = granted || policyClears(policy, c.tier);
    if (!tainted) {
      expect(taint.verdict).toBe('pass');
      expect(taint.reasons).toEqual([]);
      if (!c.alwaysAsks) expect(d.decision, why).toBe(cleared ? 'allow' : 'ask');
      return;
    }
    if (c.wakes) {
      expect(d.decision, why).toBe('ask');
      expect(taint.verdict).toBe('ask');
      expect(taint.reasons.join(' ')).toMatch(/cannot schedule the agent to run again later without asking/);
      return;
    }
    if (!c.sends) {
      expect(taint.verdict).toBe('pass');
      expect(taint.reasons).toEqual(['the run is tainted, but this call neither sends data out nor contacts other machines']);
      expect(d.decision, why).toBe(cleared ? 'allow' : 'ask');
      return;
    }
    if (granted) {
      expect(taint.verdict).toBe('pass');
      expect(taint.reasons).toEqual(['the run is tainted, but every URL of this call is covered by a URL grant the person made']);
      expect(d.decision, why).toBe('allow');
      return;
    }
    // Tainted egress with no grant: asks, whatever the tier and the policy, and says so truly.
    expect(d.decision, why).toBe('ask');
    expect(taint.verdict).toBe('ask');
    expect(taint.reasons.join(' ')).toMatch(/this run has read untrusted content, so a call that (sends data out of Deskhand|contacts other machines) asks at every tier/);
    expect(taint.reasons.join(' ')).toContain(`this one is ${d.risk}`);
    expect(why).not.toMatch(/neither sends data out/);
    // The headline (the last reason) is the taint rule unless a later inspector asks too.
    expect(why).toMatch(/untrusted content/);
  });
});
