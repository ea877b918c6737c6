/**
 * The chat family's side of AppService and the CLI: turning a request into a turn's input (attachments, edit and
 * resend), what a regenerate sends again, and a conversation exported as Markdown.
 */
import { reviewHeadline } from '../../../shared/review-words';
import type { MethodResult, ParsedParams } from '../../../shared/contract';
import { DeskhandError } from '../../../shared/errors';
import { forDisplay } from '../../../shared/untrusted-display';
import { formatBytes } from '../../../shared/attachments';
import { formatUsage } from '../../../shared/prices';
import { lastUserMessage, type TurnInput } from '../../runtime/loop/branches';
import { projectMessages, type ToolPresenter } from './projections';
import { conversationFigures } from './chat-projections';

export { conversationFigures };
export type { TurnInput };
import { parseWakeMessage } from '../assembly/wake-message';
import { type ConversationRow, type Records } from '../../runtime/records';

/** sendMessage's params as a turn's input. */
export function turnInput(p: ParsedParams<'sendMessage'>): TurnInput {
  return {
    ...(p.attachments?.length ? { attachments: p.attachments } : {}),
    ...(p.replaceFrom ? { replaceFrom: Number(p.replaceFrom.slice(1)) } : {}),
  };
}

/** A regenerate: the last user message's own stored content, replacing it and everything after it. */
export function regenerateInput(store: Records, conversationId: string): TurnInput & { untrusted?: boolean } {
  const last = lastUserMessage(store, conversationId);
  const content = JSON.parse(last.content) as unknown;
  // A turn Deskhand started itself (background work ended) carries outside content: the new run starts as having read it.
  const wake = typeof content === 'string' && parseWakeMessage(content) !== null;
  return { replaceFrom: last.id, content, ...(wake ? { untrusted: true } : {}) };
}

/**
 * The conversation as Markdown: each message under who said it, each tool call as a fenced block of its arguments
 * and one of its output (the untrusted-content markup removed, its source named). Everything stored is redacted
 * already; the text passes the runtime's redactor once more, so a secret it holds never reaches the file.
 */
export function exportConversation(store: Records, conv: ConversationRow, presenter: ToolPresenter, redact: (text: string) => string): MethodResult<'exportConversation'> {
  const items = projectMessages(store, conv.id, presenter);
  const { usage } = conversationFigures(store, conv.id);
  const out: string[] = [`# ${conv.title}`, '', `Folder: \`${conv.folder}\`  `, `Exported from Deskhand on ${new Date().toISOString()}  `];
  if (usage.inputTokens + usage.outputTokens > 0) out.push(`Usage: ${formatUsage(usage)}${usage.models.length ? ` (${usage.models.join(', ')})` : ''}`);
  out.push('');
  let who: string | null = null;
  const heading = (name: string) => {
    if (who !== name) out.push(`## ${name}`, '');
    who = name;
  };
  for (const item of items) {
    switch (item.kind) {
      case 'user':
        who = null;
        heading(item.from ? `From ${item.from}` : 'You');
        if (item.text) out.push(item.text, '');
        // The id `deskhand rewind --to` takes.
        out.push(`<sub>message ${item.id}</sub>`, '');
        for (const a of item.attachments ?? []) out.push(`- Attached ${a.kind === 'image' ? 'image' : 'file'}: ${a.name} (${formatBytes(a.bytes)})`);
        if (item.attachments?.length) out.push('');
        break;
      case 'review':
        who = null;
        heading('You (composition review)');
        out.push(`**${reviewHeadline(item)}**`, '');
        if (item.text) out.push(item.text, '');
        break;
      case 'compaction':
        who = null;
        heading('Deskhand (context compacted)');
        out.push(`${item.dropped.length} earlier messages were replaced by this summary in what the model sees (about ${item.tokensBefore} tokens became ${item.tokensAfter}):`, '', fenced(item.summary, ''), '');
        break;
      case 'hook': {
        // Whose words these are and whether the agent read them; never under "You" or "Deskhand". A project's reason
        // is shown without its envelope's markup, said to be untrusted.
        who = null;
        const shown = forDisplay(item.text);
        heading(item.toModel ? `${item.event} hook (sent the agent back to work)` : `${item.event} hooks (a note; the agent did not read it)`);
        if (shown.sources.length) out.push("A project's hook: the agent read this as untrusted content (data, not instructions).", '');
        out.push(fenced(shown.text, ''), '');
        break;
      }
      case 'wake':
        who = null;
        heading('Deskhand (background work ended)');
        for (const t of item.tasks) out.push(`**${t.headline}: ${t.title}**`, '', fenced(t.output, ''), '');
        break;
      case 'assistant':
        heading('Deskhand');
        out.push(item.text, '');
        if (item.usage) out.push(`*${formatUsage(item.usage)}*`, '');
        break;
      case 'tool': {
        heading('Deskhand');
        const full = store.toolCallOutput(conv.id, item.runId, item.callId)?.output ?? item.output ?? '';
        const shown = forDisplay(full);
        out.push(`**Tool call: ${presenter.title(item.tool)}** (\`${item.tool}\`) — ${item.status}${item.cleared ? `, ${clearedWords(item.cleared)}` : ''}`, '');
        out.push(fenced(JSON.stringify(item.args, null, 2), 'json'), '');
        if (item.preview && item.status === 'denied') out.push('Proposed change:', '', fenced(item.preview, 'diff'), '');
        if (full) {
          out.push(shown.sources.length ? `Output (from ${shown.sources.join(', ')}; data, not instructions):` : 'Output:', '', fenced(shown.text, ''), '');
        }
        break;
      }
      case 'error':
        out.push(`> ${item.severity === 'error' ? 'The run failed: ' : ''}${item.text}`, '');
        break;
    }
  }
  const markdown = redact(out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n');
  return { markdown, fileName: `${slug(conv.title)}.md` };
}

function clearedWords(c: NonNullable<Extract<ReturnType<typeof projectMessages>[number], { kind: 'tool' }>['cleared']>): string {
  const verb = c.decision === 'denied' ? 'denied' : 'approved';
  const when = c.at ? ` at ${new Date(c.at).toISOString()}` : '';
  if (c.by === 'person') return `${verb} by you${c.via ? ` in ${c.via}` : ''}${when}`;
  if (c.by === 'rule') return `allowed by the saved rule ${c.via ?? ''}`.trimEnd();
  return 'allowed by the conversation policy';
}

/** A fence longer than any run of backticks in the text, so nothing inside can close it. */
function fenced(text: string, lang: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`;
}

function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'conversation'
  );
}

/** The conversation a CLI command names, or a clear error. */
export function conversationOrThrow(store: Records, id: string): ConversationRow {
  const row = store.getConversation(id);
  if (!row) throw new DeskhandError('not_found', `No conversation ${id}. List them with \`deskhand runs list\`.`);
  return row;
}
