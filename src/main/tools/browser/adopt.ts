/**
 * browser_adopt_tab: take over one tab of the person's own browser (started with `--remote-debugging-port`). The
 * model never sees that browser's tabs: the call's effects list them for the person, and the call runs only after
 * the person picks one in a `browser_tab` input request (declining leaves their browser alone). The adopted tab
 * joins the conversation's session as "adopted"; browser_close hands it back without closing it.
 */
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import { ToolError } from '../../../shared/errors';
import type { InputKind } from '../../runtime/loop/input-kinds';
import { defineTool } from '../../runtime/tool';
import type { AdoptableTab, BrowserService } from '../../services/browser/index';
import { pageLines, step } from './pages';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:9222';

interface TabPickData {
  endpoint: string;
  tabs: AdoptableTab[];
}

export const browserTabKind: InputKind<{ tab: number }> = {
  kind: 'browser_tab',
  answer: z.strictObject({ tab: z.number().int().min(1) }),
  accept({ tab }, data) {
    const d = data as TabPickData;
    const picked = d.tabs[tab - 1];
    if (!picked) throw new DeskhandError('usage', `There is no tab ${tab}: pick a number from 1 to ${d.tabs.length}.`);
    return { tab: picked, endpoint: d.endpoint };
  },
  label: () => 'a tab of your browser to hand over',
  example: '{"tab": 1}',
};

const params = () => z
  .object({
    endpoint: z
      .string()
      .regex(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{2,5}\/?$/, 'the local remote-debugging address, such as http://127.0.0.1:9222')
      .optional()
      .describe('Where the person\'s browser listens for remote debugging (default: the setting, else http://127.0.0.1:9222).'),
    reason: z.string().min(1).max(500).describe('Why you need one of their tabs, shown to the person.'),
  })
  .strict();

export function createAdoptTab(deps: { browser: BrowserService; endpoint: () => string | undefined }) {
  const endpointOf = (args: { endpoint?: string | undefined }) => (args.endpoint ?? deps.endpoint() ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
  return defineTool({
    name: 'browser_adopt_tab',
    description:
      "Ask the person to hand you one tab of their own browser (Chrome/Chromium/Edge started with --remote-debugging-port). They pick the tab; " +
      'you never see their other tabs. The tab joins your session as "adopted"; browser_close hands it back without closing it.',
    params,
    risk: 'high-risk',
    disclosure: 'private',
    async effects(args) {
      // Listed here, before the request is drawn, so the person chooses from what is open now.
      await deps.browser.listAdoptable(endpointOf(args)).catch(() => undefined);
      return { network: true, egress: true, hosts: [new URL(endpointOf(args)).host] };
    },
    input(args) {
      const endpoint = endpointOf(args);
      const tabs = deps.browser.lastListed(endpoint) ?? [];
      const list = tabs.length ? tabs.map((t, i) => `${i + 1}. ${t.title || '(no title)'} — ${t.url}`).join('\n') : '(no tabs could be listed)';
      return {
        kind: 'browser_tab',
        description: 'Hand over a tab of your browser',
        prompt:
          `Deskhand asks to take over one tab of your browser at ${endpoint}: ${args.reason}\n` +
          `It will be able to read and act in that tab only. Answer with the tab's number, or decline.\n\n${list}`,
        data: { endpoint, tabs } satisfies TabPickData,
      };
    },
    presentation: { title: 'Adopt a tab of your browser', icon: 'browser', summary: (a) => a.reason },
    timeoutMs: 60_000,
    async execute(args, ctx) {
      const answer = ctx.answer as { tab: AdoptableTab; endpoint: string } | undefined;
      if (!answer?.tab) throw new ToolError('No tab was picked.');
      const p = await step('Could not adopt the tab', () => deps.browser.adopt(ctx.conversationId, answer.endpoint, answer.tab));
      return { output: [...pageLines(p), '', `The person handed you this tab as "${p.tab}". Read it with browser_snapshot.`].join('\n'), untrustedSource: `browser ${p.url}` };
    },
  });
}
