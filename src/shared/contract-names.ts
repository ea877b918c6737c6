/**
 * The names of the contract's methods and events, without zod, so the sandboxed preload bundle stays small.
 * contract.ts asserts at compile time that these lists and its schemas name exactly the same things.
 */
export const METHOD_NAMES = [
  'getHostInfo',
  'listConversations',
  'createConversation',
  'renameConversation',
  'deleteConversation',
  'setPolicy',
  'getMessages',
  'getToolOutput',
  'sendMessage',
  'stopRun',
  'listPendingApprovals',
  'decideApproval',
  'getSettings',
  'saveSettings',
  'setApiKey',
  'clearApiKey',
  'pickFolder',
] as const;

export const EVENT_NAMES = ['run', 'conversationsChanged', 'approvalsChanged', 'openApproval', 'newConversation'] as const;

/** The one IPC channel each way; the method or event name travels inside and is checked against the lists above. */
export const IPC_CALL_CHANNEL = 'deskhand:call';
export const IPC_EVENT_CHANNEL = 'deskhand:event';

/** Requests larger than this are refused before parsing (a UI never needs more; a flood is not a request). */
export const MAX_PAYLOAD_BYTES = 1_000_000;
