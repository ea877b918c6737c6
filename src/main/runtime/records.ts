/**
 * The runtime's records: what the hosts (host/, electron/) read and write of the store, and nothing else. A host never
 * imports a store module or the `Store` class (lint, eslint.config.mjs "hosts behind the app service"): it gets a
 * `Records` from the runtime (`runtime.records`) or, for a one-shot CLI command, from the assembly that opened the
 * store (`host/assembly/open-store.ts`). The facade names each family's rows by what they are (`records.usage`,
 * `records.subagents`…), so a host never picks a module or holds the connection (no `close`, no raw SQL).
 *
 * Row types the hosts show are re-exported here, so a host file names them without importing the store.
 */
import { goalsModule } from '../services/store/modules/goals';
import { peersModule } from '../services/store/modules/peers';
import { reviewedModule } from '../services/store/modules/reviewed';
import type { Store } from '../services/store/store';
import { appGrantsModule } from '../services/store/modules/app-grants';
import { chatModule } from '../services/store/modules/chat';
import { contextModule } from '../services/store/modules/context';
import { extensionsModule } from '../services/store/modules/extensions';
import { instructionPinsModule } from '../services/store/modules/instruction-pins';
import { scheduleModule } from '../services/store/modules/schedule';
import { subagentsModule } from '../services/store/modules/subagents';
import { towerModule } from '../services/store/modules/tower';
import { usageModule } from '../services/store/modules/usage';
import { workflowsModule } from '../services/store/modules/workflows';

export type { ApprovalRow, ConversationRow, MessageRow, RunRow, ToolCallRow } from '../services/store/store';
export type { CallNoteRow } from '../services/store/modules/chat';
export type { SubagentRow } from '../services/store/modules/subagents';
export type { UrlGrantRow } from '../services/store/modules/url-grants';
export type { BudgetRow, BudgetScope, UsageHoldRow } from '../services/store/modules/usage';
export type { WorkflowPhase, WorkflowRow } from '../services/store/modules/workflows';
export type { TowerSessionRow } from '../services/store/modules/tower';
export type { TaskRow } from '../services/store/modules/tasks';
export { SUBAGENT_TERMINAL } from '../services/store/modules/subagents';
export { WORKFLOW_TERMINAL } from '../services/store/modules/workflows';

/** The conversation, run, message, call and request rows a host reads or changes (the store's own tables). */
const STORE_CALLS = [
  'changeStamp',
  'onExternalChange',
  'transaction',
  'createConversation',
  'getConversation',
  'listConversations',
  'updateConversation',
  'deleteConversation',
  'addMessage',
  'searchMessages',
  'listMessages',
  'lastMessageWithRole',
  'getRun',
  'listRuns',
  'runsWithStatus',
  'runsForConversation',
  'latestRunForConversation',
  'activeRunForConversation',
  'toolCallsForRun',
  'toolCallsForConversation',
  'toolCallOutput',
  'getApproval',
  'pendingApprovals',
  'approvalsForRun',
  'approvalsForConversation',
  'pendingApprovalCounts',
  'pendingApprovalsWithContext',
  'secretDescriptions',
] as const satisfies readonly (keyof Store)[];

type Rows<M extends { queries: (...a: never[]) => unknown }> = ReturnType<M['queries']>;

export type Records = Pick<Store, (typeof STORE_CALLS)[number] | 'rules' | 'tasks' | 'urlGrants' | 'isOpen'> & {
  readonly usage: Rows<typeof usageModule>;
  readonly subagents: Rows<typeof subagentsModule>;
  readonly tower: Rows<typeof towerModule>;
  readonly workflows: Rows<typeof workflowsModule>;
  readonly extensions: Rows<typeof extensionsModule>;
  readonly appGrants: Rows<typeof appGrantsModule>;
  readonly schedule: Rows<typeof scheduleModule>;
  readonly compactions: Rows<typeof contextModule>;
  readonly chat: Rows<typeof chatModule>;
  readonly instructionPins: Rows<typeof instructionPinsModule>;
  readonly goals: Rows<typeof goalsModule>;
  readonly peers: Rows<typeof peersModule>;
  readonly reviewed: Rows<typeof reviewedModule>;
};

const VIEWS = {
  usage: usageModule,
  subagents: subagentsModule,
  tower: towerModule,
  workflows: workflowsModule,
  extensions: extensionsModule,
  appGrants: appGrantsModule,
  schedule: scheduleModule,
  compactions: contextModule,
  chat: chatModule,
  instructionPins: instructionPinsModule,
  goals: goalsModule,
  peers: peersModule,
  reviewed: reviewedModule,
} as const;

const facades = new WeakMap<Store, Records>();

/** The records facade over an open store (one per store, so identity comparisons hold). */
export function recordsOf(store: Store): Records {
  const known = facades.get(store);
  if (known) return known;
  const out: Record<string, unknown> = {};
  for (const name of STORE_CALLS) out[name] = (store[name] as (...a: unknown[]) => unknown).bind(store);
  for (const name of ['rules', 'tasks', 'urlGrants'] as const) out[name] = store[name];
  Object.defineProperty(out, 'isOpen', { get: () => store.isOpen, enumerable: true });
  for (const [name, module] of Object.entries(VIEWS)) {
    Object.defineProperty(out, name, { get: () => store.module(module as Parameters<Store['module']>[0]), enumerable: true });
  }
  const records = Object.freeze(out) as unknown as Records;
  facades.set(store, records);
  return records;
}
