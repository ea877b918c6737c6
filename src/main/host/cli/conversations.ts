/** `deskhand conversations export ID [--out FILE]`: a conversation as Markdown (chat-host.ts), to stdout or a file. */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { fallbackTitle } from '../../../shared/tool-presentation';
import { SecretRedactor } from '../../runtime/redaction';
import { conversationOrThrow, exportConversation } from '../app/chat-host';
import { withRecords } from './common';

export async function conversationsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { 'data-dir': { type: 'string' }, out: { type: 'string' } } });
  if (sub !== 'export') throw new DeskhandError('usage', `Unknown conversations command "${sub ?? ''}"; use \`deskhand conversations export ID [--out FILE]\`.`);
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
