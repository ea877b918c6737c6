/**
 * `deskhand prompt show` prints the system prompt a conversation's next request carries, in full; `deskhand tools`
 * lists what a conversation's agent may use: each tool's family, risk tier, whether it asks under the conversation's
 * policy, and whether its schema is loaded, deferred (loaded by search_tools or a call) or off (browser, computer use).
 * Without --conversation both describe a new conversation in --cwd (nothing is stored).
 */
import { resolve } from 'node:path';
import { POLICIES, type Policy } from '../../../shared/tools';
import { toolListing } from '../../runtime/prompt/tool-listing';
import { createAppRuntime, resolveDataDir, type AppRuntime } from '../assembly/open-runtime';
import { parseSubcommand } from './common';
import { type ConversationRow } from '../../runtime/records';

const OPTIONS = {
  conversation: { type: 'string' },
  cwd: { type: 'string' },
  policy: { type: 'string' },
  provider: { type: 'string' },
} as const;

async function withRuntime<T>(dataDir: string | undefined, fn: (rt: AppRuntime) => T | Promise<T>): Promise<T> {
  const rt = createAppRuntime({ dataDir: resolveDataDir(dataDir), afterTurn: () => undefined });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

function conversationOf(rt: AppRuntime, values: { conversation?: string | undefined; cwd?: string | undefined; policy?: string | undefined }): ConversationRow {
  if (values.conversation) {
    const conv = rt.records.getConversation(values.conversation);
    if (!conv) throw new Error(`No conversation ${values.conversation}.`);
    return conv;
  }
  const policy = (values.policy ?? 'read-only') as Policy;
  if (!POLICIES.includes(policy)) throw new Error(`--policy must be one of ${POLICIES.join(', ')}.`);
  const now = Date.now();
  return { id: 'conv_preview', title: 'New conversation', folder: resolve(values.cwd ?? process.cwd()), policy, sandbox: 'workspace-write', state: '{}', created_at: now, updated_at: now } as unknown as ConversationRow;
}

export async function promptCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'show') {
    process.stderr.write('Usage: deskhand prompt show [--conversation ID | --cwd DIR --policy P] [--provider anthropic|openai|openai-compatible] [--data-dir DIR]\n');
    return 2;
  }
  const { values } = parseSubcommand(rest, OPTIONS);
  return withRuntime(values['data-dir'], (rt) => {
    const conv = conversationOf(rt, values);
    const text = typeof values.conversation === 'string' ? rt.promptFor(conv.id, values.provider) : rt.promptFor(conv, values.provider);
    process.stdout.write(values.json ? `${JSON.stringify({ conversation: values.conversation ?? null, prompt: text })}\n` : `${text}\n`);
    return 0;
  });
}

export async function toolsCommand(args: string[]): Promise<number> {
  const { values } = parseSubcommand(args, OPTIONS);
  return withRuntime(values['data-dir'], (rt) => {
    const conv = conversationOf(rt, values);
    const { policy, tools: rows } = toolListing(rt.registry, conv);
    if (values.json) process.stdout.write(`${JSON.stringify({ conversation: values.conversation ?? null, policy, tools: rows })}\n`);
    else {
      const w = Math.max(...rows.map((r) => r.name.length), 4);
      process.stdout.write(`Tools of ${values.conversation ?? 'a new conversation'} (policy ${policy}; asks: whether a call asks the person under it):\n`);
      process.stdout.write(`${'TOOL'.padEnd(w)}  FAMILY        TIER        ASKS      LOADED\n`);
      for (const r of rows) process.stdout.write(`${r.name.padEnd(w)}  ${r.family.padEnd(12)}  ${r.tier.padEnd(10)}  ${r.asks.padEnd(8)}  ${r.load}\n`);
    }
    return 0;
  });
}
