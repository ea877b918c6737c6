/**
 * The contract's names and constants without zod, so the sandboxed preload and the renderer bundle stay small (they
 * import schemas as types only). contract.ts asserts at compile time that these lists and its schemas agree.
 */
export const METHOD_NAMES = [
  'openMcpApp',
  'callMcpAppTool',
  'answerMcpAppCall',
  'sendMcpAppMessage',
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
  'stopParkedRun',
  'listPendingApprovals',
  'decideApproval',
  'provideSecret',
  'answerRequest',
  'browseForRequest',
  'pickForRequest',
  'listTools',
  'getTodos',
  'getBrowserSession',
  'closeBrowserSession',
  'getSettings',
  'saveSettings',
  'setApiKey',
  'clearApiKey',
  'detectLocalModels',
  'testProvider',
  'getWebSearch',
  'setWebSearch',
  'listUrlGrants',
  'addUrlGrant',
  'revokeUrlGrant',
  'listRules',
  'searchMessages',
  'revokeRule',
  'listAppGrants',
  'revokeAppGrant',
  'getComputerUse',
  'stopComputerUse',
  'readScreenshot',
  'pickFolder',
  'setSandbox',
  'listBackgroundTasks',
  'cancelBackgroundTask',
  'listMemory',
  'changeMemory',
  'setMemoryExtraction',
  'listGoals',
  'schedule',
  // extensions (contract-extensions.ts)
  'listCommands',
  'listPlugins',
  'addMarketplace',
  'installPlugin',
  'setPluginEnabled',
  'removePlugin',
  'getClaudeCompat',
  'setClaudeCompat',
  'listMcpServers',
  'addMcpServer',
  'removeMcpServer',
  'testMcpServer',
  'listProfiles',
  'setConversationProfile',
  'listCompositions',
  'getComposition',
  'getCompositionSource',
  'openComposition',
  'reviewComposition',
  // subagents (contract-subagents.ts)
  'listSubagents',
  'steerSubagent',
  'cancelSubagent',
  // chat (contract-chat.ts)
  'regenerate',
  'forkConversation',
  'exportConversation',
  'markReviewed',
  // browser screenshots, generated media and the companion model (contract-media.ts)
  'readBrowserScreenshot',
  'readMediaArtifact',
  'getCompanion',
  'setCompanion',
  // peers (contract-peers.ts)
  'listPeers',
  'addPeer',
  'updatePeer',
  'removePeer',
  'rotatePeerToken',
  'getPeerEndpoint',
  'setPeerEndpoint',
  // paired devices (contract-devices.ts)
  'listDevices',
  'startDevicePairing',
  'revokeDevice',
  'driveMachine',
  'stopDriving',
  'getTowerBoard',
  'listWorkflows',
  'getWorkflow',
  'cancelWorkflow',
  // tools on demand (contract-tools.ts)
  'getConversationTools',
  'setConversationFamilies',
  'getSystemPrompt',
  'trustInstructions',
  // the viewer's exports (contract-compositions.ts) and the web folder browser (contract-folders.ts)
  'exportComposition',
  'printComposition',
  'listFolders',
  // the change ledger (contract-changes.ts)
  'listChanges',
  'getChangeDiff',
  'rewind',
  // the usage ledger and budgets (contract-usage.ts)
  'getUsage',
  'getConversationUsage',
  'setBudget',
  'answerBudgetHold',
] as const;

export const EVENT_NAMES = ['run', 'conversationsChanged', 'approvalsChanged', 'openApproval', 'openConversation', 'newConversation', 'backgroundTasksChanged', 'todosChanged', 'toolsChanged', 'compositionsChanged', 'browserChanged', 'computerChanged', 'subagentsChanged'] as const;

/** The one IPC channel each way; the method or event name travels inside and is checked against the lists above. */
export const IPC_CALL_CHANNEL = 'deskhand:call';
export const IPC_EVENT_CHANNEL = 'deskhand:event';

/** Requests larger than this are refused before parsing (a UI never needs more; a flood is not a request). */
export const MAX_PAYLOAD_BYTES = 1_000_000;

export const PROVIDER_NAMES = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const TOOL_ITEM_STATUSES = ['pending', 'awaiting_approval', 'approved', 'running', 'ok', 'error', 'denied', 'interrupted', 'stopped', 'backgrounded'] as const;
export type ToolItemStatus = (typeof TOOL_ITEM_STATUSES)[number];

/** Tool results in getMessages are cut to this many characters; the rest pages in with getToolOutput. */
export const OUTPUT_PREVIEW_CHARS = 4000;
