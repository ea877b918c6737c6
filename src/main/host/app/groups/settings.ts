/**
 * Handler groups (handler-groups.ts) for the smaller families: web search and URL grants (web-settings.ts), saved
 * rules (rules-view.ts), message search (message-search.ts), the schedule (schedule-host.ts) and the conversation's
 * browser session, whose changes reach every UI live.
 */
import type { HandlerGroup } from '../handler-groups';
import { revokeRule, ruleViews } from '../rules-view';
import { searchMessages } from '../message-search';
import { scheduleMethod } from './schedule';
import { WebSettings } from '../web-settings';

export const webGroup: HandlerGroup<'getWebSearch' | 'setWebSearch' | 'listUrlGrants' | 'addUrlGrant' | 'revokeUrlGrant'> = ({ runtime, dataDir, env }) => {
  const web = new WebSettings({ dataDir, store: runtime.records, vault: runtime.vault, env });
  return {
    getWebSearch: () => web.searchView(),
    setWebSearch: (p) => web.setSearch(p),
    listUrlGrants: async () => web.listGrants(),
    addUrlGrant: async (p) => web.addGrant(p),
    revokeUrlGrant: async (p) => web.revokeGrant(p),
  };
};

export const rulesGroup: HandlerGroup<'listRules' | 'revokeRule' | 'searchMessages' | 'schedule'> = ({ runtime, providerForRun }) => ({
  listRules: async () => ({ rules: ruleViews(runtime.records) }),
  async revokeRule(p) {
    revokeRule(runtime.records, p.id);
    return { rules: ruleViews(runtime.records) };
  },
  searchMessages: async (p) => searchMessages(runtime.records, p.query, p.limit),
  schedule: (p) => scheduleMethod(runtime, p, providerForRun),
});

export const browserGroup: HandlerGroup<'getBrowserSession' | 'closeBrowserSession'> = ({ runtime, emit, onShutdown }) => {
  const off = runtime.browser?.onChange((v) =>
    emit({ event: 'browserChanged', payload: { conversationId: v.conversationId, session: 'closed' in v ? null : { tab: v.tab, url: v.url, title: v.title, tabs: v.tabs, shot: v.shot } } }),
  );
  if (off) onShutdown(off);
  return {
    async getBrowserSession(p) {
      const view = runtime.browser?.sessions().find((v) => v.conversationId === p.conversationId);
      return { session: view ? { tab: view.tab, url: view.url, title: view.title, tabs: view.tabs, shot: view.shot } : null };
    },
    async closeBrowserSession(p) {
      await runtime.browser?.close(p.conversationId);
      return { ok: true };
    },
  };
};
