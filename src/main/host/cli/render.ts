/**
 * How `deskhand run` shows a run in a terminal: the model's text on stdout; calls, results, requests, hooks' words and
 * the end on stderr.
 */
import type { RunEvent } from '../../../shared/events';
import { forDisplay } from '../../../shared/untrusted-display';

/** Lines of a tool's output the CLI prints under its status line. */
const OUTPUT_LINES = 12;

let midLine = false;
let announcedConversation: string | null = null;
export function renderEvent(event: RunEvent): void {
  const err = (line: string) => {
    if (midLine) process.stdout.write('\n');
    midLine = false;
    process.stderr.write(`${line}\n`);
  };
  switch (event.type) {
    case 'text':
      process.stdout.write(event.delta);
      midLine = !event.delta.endsWith('\n');
      break;
    case 'tool.call':
      err(`→ ${event.tool} ${JSON.stringify(event.args).slice(0, 200)}`);
      break;
    case 'tool.result': {
      // The text inside the untrusted envelope, as a person reads it: a status line, then up to OUTPUT_LINES lines.
      const lines = forDisplay(event.output).text.split('\n');
      err(`  ${event.status === 'ok' ? '✓' : '✗'} ${event.tool} (${event.durationMs} ms) ${lines[0]?.slice(0, 160) ?? ''}`);
      const rest = lines.slice(1);
      while (rest.length && !rest.at(-1)!.trim()) rest.pop();
      for (const line of rest.slice(0, OUTPUT_LINES)) err(`    ${line.slice(0, 200)}`);
      if (rest.length > OUTPUT_LINES) err(`    … ${rest.length - OUTPUT_LINES} more lines (deskhand runs show ${event.runId})`);
      break;
    }
    case 'approval.requested':
      err(`! approval needed ${event.approvalId}: ${event.description} [${event.risk}] — ${event.reasons.at(-1) ?? ''}`);
      if (event.preview) err(event.preview);
      break;
    case 'run.retry':
      // The step starts again from nothing: text already printed of it is repeated by the retry.
      if (midLine) process.stdout.write('\n');
      midLine = false;
      err(`… retrying in ${Math.round(event.delayMs / 100) / 10} s (attempt ${event.attempt}; the reply starts again): ${event.reason}`);
      break;
    case 'input.requested':
      err(`? ${event.description} (${event.requestId}, ${event.kind})`);
      if (event.prompt) err(event.prompt);
      break;
    case 'context.compaction':
      if (midLine) process.stdout.write('\n');
      midLine = false;
      err(
        event.phase === 'started'
          ? `… compacting the context: ${event.droppedMessages} older messages (~${event.tokensBefore} tokens in all) are being summarized; the transcript keeps them.`
          : `… compacted: ~${event.tokensBefore} → ~${event.tokensAfter ?? '?'} tokens (deskhand conversations export shows what was dropped).`,
      );
      break;
    case 'hook.note': {
      // A hook's words are the person's to read, never the model's text: on stderr, saying whose they are and whether
      // the agent read them (a project's reason without its envelope's markup, said to be untrusted).
      const shown = forDisplay(event.text);
      const lines = shown.text.split('\n');
      const head = event.toModel
        ? `${event.event} hook, sent the agent back to work${shown.sources.length ? " (a project's hook: the agent read it as untrusted content)" : ''}`
        : `${event.event} hooks, a note for you (the agent did not read it)`;
      err(`⚑ ${head}: ${lines[0] ?? ''}`);
      for (const line of lines.slice(1)) err(`    ${line}`);
      break;
    }
    case 'run.parked':
      if (event.budget) {
        err(`${event.budget.message} Answer with: deskhand runs answer ${event.budget.holdId} --value '{"usd": N}' (or '{"tokens": N}'), or --value '{"stop": true}'.`);
        break;
      }
      err(`Run ${event.runId} is parked waiting for a person. Answer with: deskhand runs approve ${event.approvalIds[0]} (or deny), or deskhand runs answer ${event.approvalIds[0]} --value JSON for a question or file pick.`);
      break;
    case 'run.finished':
      if (midLine) process.stdout.write('\n');
      midLine = false;
      if (event.error) process.stderr.write(`deskhand: ${event.error}\n`);
      if (announcedConversation !== event.conversationId) {
        announcedConversation = event.conversationId;
        process.stderr.write(`(conversation ${event.conversationId}: continue it with --conversation ${event.conversationId})\n`);
      }
      break;
    default:
      break;
  }
}

