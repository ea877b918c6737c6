/**
 * `deskhand conversations export ID [--out FILE]`: a conversation as Markdown (chat-host.ts), to stdout or a file.
 * `deskhand conversations fork ID [--at MESSAGE] [--json]`: a new conversation with the history up to a message.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { fallbackTitle } from '../../../shared/tool-presentation';
import { SecretRedactor } from '../../runtime/context/redaction';
import { conversationOrThrow, exportConversation } from '../app/chat-host';
import { withRecords, withStore } from './common';
import { forkConversation, parseMessageRef } from '../../runtime/context/fork';

export async function conversationsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { 'data-dir': { type: 'string' }, out: { type: 'string' }, at: { type: 'string' }, json: { type: 'boolean' } } });
  if (sub === 'fork') return forkCommand(positionals[0], values);
  if (sub !== 'export') throw new DeskhandError('usage', `Unknown conversations command "${sub ?? ''}"; use \`deskhand conversations export ID [--out FILE]\` or \`deskhand conversations fork ID [--at MESSAGE]\`.`);
  const id = positionals[0];
  if (!id) throw new DeskhandError('usage', 'conversations export needs a conversation ID (the CLI prints it after each run; `deskhand runs list` shows runs with theirs).');
  return withRecords(values['data-dir'], (store) => {
    const conv = conversationOrThrow(store, id);
    // Stored text is redacted already; credential-shaped text and credential environment values are redacted again.
    const redactor = new SecretRedactor();
    const { markdown } = exportConversation(store, conv, { title: fallbackTitle, summarize: () => null }, (t) => redactor.redact(t));
    if (values.out) {
      writeFileSync(values.out, markdown, { mode: 0o600 });
      process.stderr.write(`Exported "${conv.title}" to ${values.out}.\n`);
    } else process.stdout.write(markdown);
    return 0;
  });
}

/** A fork: the history up to `--at` (a message id; default: the whole conversation), nothing after; the source unchanged. */
function forkCommand(id: string | undefined, values: { 'data-dir'?: string; at?: string; json?: boolean }): Promise<number> {
  if (!id) throw new DeskhandError('usage', 'conversations fork needs a conversation ID (`deskhand runs list` shows runs with theirs).');
  const at = values.at === undefined ? undefined : parseMessageRef(values.at);
  return withStore(values['data-dir'], (store) => {
    const fork = forkConversation(store, id, at);
    const messages = store.listMessages(fork.id).length;
    if (values.json) process.stdout.write(`${JSON.stringify({ conversationId: fork.id, title: fork.title, source: id, messages })}\n`);
    else process.stdout.write(`Forked into ${fork.id} ("${fork.title}"): ${messages} messages. Continue it with \`deskhand run --conversation ${fork.id} "…"\`.\n`);
    return 0;
  });
}
