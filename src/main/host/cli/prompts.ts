/**
 * What the CLI asks on a terminal, one request at a time: approvals ([y]es, [A]lways, [n]o with a reason), secrets
 * (typed without echo), questions (numbered options, "Other" in the person's own words), file picks (paths) and
 * MCP servers' forms and URLs (elicitation).
 */
import { homedir } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { RunEvent } from '../../../shared/events';
import { describeAlways } from '../../../shared/always-allow';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import type { AppRuntime as Runtime } from '../assembly/open-runtime';

type InputEvent = Extract<RunEvent, { type: 'input.requested' }>;
type QuestionData = { questions: { question: string; header: string | null; options: { label: string; description: string }[]; multiSelect: boolean }[] };

/** Reads one line from the terminal in raw mode, echoing nothing. */
export function readHidden(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    output.write(prompt);
    const wasRaw = input.isRaw;
    input.setRawMode?.(true);
    input.resume();
    let value = '';
    const done = (err?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(wasRaw);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolvePromise(value);
    };
    const onData = (data: Buffer | string) => {
      for (const ch of typeof data === 'string' ? data : data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new DeskhandError('usage', 'Cancelled.'));
        if (ch === '\u0004') return value ? done() : done(new DeskhandError('usage', 'Cancelled.'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}

/** Asks approvals one at a time on the terminal. */
export class PromptQueue {
  private chain: Promise<void> = Promise.resolve();
  constructor(private readonly runtime: Runtime) {}

  ask(event: Extract<RunEvent, { type: 'approval.requested' }>): void {
    if (this.runtime.records.getApproval(event.approvalId)?.kind === 'secret') {
      // An input request: the person types the secret with nothing echoed; an empty answer declines.
      this.chain = this.chain.then(async () => {
        try {
          const value = await readHidden(`${event.preview ?? event.description} (hidden; empty to decline): `);
          if (value) await this.runtime.provideSecret(event.approvalId, value);
          else await this.runtime.decideApproval(event.approvalId, { approved: false, reason: 'The person did not provide the secret.' });
        } catch (err) {
          process.stderr.write(`deskhand: ${errorMessage(err)}\n`);
          await this.runtime.decideApproval(event.approvalId, { approved: false, reason: 'The person cancelled.' }).catch(() => undefined);
        }
      });
      return;
    }
    this.chain = this.chain.then(async () => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const always = event.alwaysPattern ? `, [A]lways: ${describeAlways(event.tool, event.alwaysPattern)}` : '';
        const answer = (await rl.question(`Approve ${event.tool}? [y]es${always}, [n]o: `)).trim();
        if (answer === 'A' && event.alwaysPattern) await this.runtime.decideApproval(event.approvalId, { approved: true, always: true, by: 'the CLI' });
        else if (/^y(es)?$/i.test(answer)) await this.runtime.decideApproval(event.approvalId, { approved: true, by: 'the CLI' });
        else {
          const reason = (await rl.question('Reason for the model (optional): ')).trim();
          await this.runtime.decideApproval(event.approvalId, { approved: false, ...(reason ? { reason } : {}), by: 'the CLI' });
        }
      } catch (err) {
        process.stderr.write(`deskhand: ${errorMessage(err)}\n`);
      } finally {
        rl.close();
      }
    });
  }

  /** A request other than an approval: drawn by its kind; anything this terminal cannot draw says how to answer it. */
  input(event: InputEvent): void {
    this.chain = this.chain.then(async () => {
      try {
        if (event.kind === 'secret') {
          const value = await readHidden(`${event.prompt || event.description} (hidden; empty to decline): `);
          if (value) await this.runtime.provideSecret(event.requestId, value);
          else await this.runtime.decideApproval(event.requestId, { approved: false, reason: 'The person did not provide the secret.' });
          return;
        }
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        try {
          if (event.kind === 'question') await this.askQuestions(rl, event);
          else if (event.kind === 'file_pick') await this.askPaths(rl, event);
          else if (event.kind === 'mcp_elicitation') await this.askElicitation(rl, event);
          else process.stderr.write(`Answer it with: deskhand runs answer ${event.requestId} --value JSON\n`);
        } finally {
          rl.close();
        }
      } catch (err) {
        process.stderr.write(`deskhand: ${errorMessage(err)}\n`);
        await this.runtime.decideApproval(event.requestId, { approved: false, reason: 'The person cancelled.' }).catch(() => undefined);
      }
    });
  }

  private async askQuestions(rl: ReturnType<typeof createInterface>, event: InputEvent): Promise<void> {
    const { questions } = event.data as QuestionData;
    const answers: Record<string, string | string[]> = {};
    for (const q of questions) {
      process.stderr.write(`\n${q.header ? `[${q.header}] ` : ''}${q.question}\n`);
      q.options.forEach((o, i) => process.stderr.write(`  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ''}\n`));
      process.stderr.write(`  ${q.options.length + 1}. Other (type your own answer)\n`);
      for (;;) {
        const line = (await rl.question(q.multiSelect ? 'Choose one or more (e.g. 1,3), or type an answer: ' : 'Choose a number, or type an answer: ')).trim();
        if (!line) continue;
        const numbers = line.split(/[\s,]+/).map((n) => Number(n));
        if (numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= q.options.length + 1)) {
          if (numbers.includes(q.options.length + 1)) {
            answers[q.question] = (await rl.question('Your answer: ')).trim();
          } else {
            const labels = numbers.map((n) => q.options[n - 1]!.label);
            if (labels.length > 1 && !q.multiSelect) {
              process.stderr.write('Choose one.\n');
              continue;
            }
            answers[q.question] = q.multiSelect ? labels : labels[0]!;
          }
        } else answers[q.question] = line;
        break;
      }
    }
    await this.runtime.answerRequest(event.requestId, { answers });
  }

  /** An MCP server's form (field by field) or URL (shown, never opened here); "-" declines. */
  private async askElicitation(rl: ReturnType<typeof createInterface>, event: InputEvent): Promise<void> {
    const data = event.data as { mode: 'form' | 'url'; server: string; message: string; url?: string; warning?: string | null; schema?: { properties: Record<string, Record<string, unknown>>; required?: string[] } };
    process.stderr.write(`\nMCP server ${data.server} asks: ${data.message}\n`);
    if (data.mode === 'url') {
      process.stderr.write(`Open in your browser: ${data.url}\n${data.warning ? `${data.warning}\n` : ''}`);
      const line = (await rl.question('When you are done there: [a]ccept, [d]ecline, [c]ancel: ')).trim().toLowerCase();
      const action = line.startsWith('a') ? 'accept' : line.startsWith('c') ? 'cancel' : 'decline';
      await this.runtime.answerRequest(event.requestId, { action, by: 'the CLI' });
      return;
    }
    const props = data.schema?.properties ?? {};
    const required = new Set(data.schema?.required ?? []);
    for (;;) {
      const content: Record<string, string | number | boolean | string[]> = {};
      for (const [name, p] of Object.entries(props)) {
        const label = String(p.title ?? name);
        const options = Array.isArray(p.enum) ? (p.enum as unknown[]).map(String) : null;
        const hint = options ? ` (one of ${options.join(', ')})` : p.type === 'boolean' ? ' (yes/no)' : p.type === 'number' || p.type === 'integer' ? ` (a${p.type === 'integer' ? 'n integer' : ' number'})` : '';
        const line = (await rl.question(`${label}${hint}${required.has(name) ? '' : ' [optional]'}${p.description ? ` — ${String(p.description)}` : ''}: `)).trim();
        if (line === '-') {
          await this.runtime.answerRequest(event.requestId, { action: 'decline', by: 'the CLI' });
          return;
        }
        if (!line) continue;
        if (p.type === 'boolean') content[name] = /^(y|yes|true|1)$/i.test(line);
        else if (p.type === 'number' || p.type === 'integer') content[name] = Number(line);
        else if (p.type === 'array') content[name] = line.split(',').map((x) => x.trim()).filter(Boolean);
        else content[name] = line;
      }
      try {
        await this.runtime.answerRequest(event.requestId, { action: 'accept', content, by: 'the CLI' });
        return;
      } catch (err) {
        if (!DeskhandError.isInstance(err) || err.code !== 'usage') throw err;
        process.stderr.write(`${err.message} Try again, or type - to decline.\n`);
      }
    }
  }

  private async askPaths(rl: ReturnType<typeof createInterface>, event: InputEvent): Promise<void> {
    const data = event.data as { prompt: string; multiple: boolean };
    for (;;) {
      const line = (await rl.question(`${data.prompt}\n${data.multiple ? 'Paths (one per line, empty line to finish)' : 'Path'} (empty to decline): `)).trim();
      if (!line) {
        await this.runtime.decideApproval(event.requestId, { approved: false, reason: 'The person did not pick anything.' });
        return;
      }
      const paths = [line];
      while (data.multiple) {
        const more = (await rl.question('> ')).trim();
        if (!more) break;
        paths.push(more);
      }
      for (let i = 0; i < paths.length; i++) paths[i] = paths[i]!.replace(/^~(?=\/|$)/, homedir());
      try {
        await this.runtime.answerRequest(event.requestId, { paths });
        return;
      } catch (err) {
        if (!DeskhandError.isInstance(err) || err.code !== 'usage') throw err;
        process.stderr.write(`${err.message}\n`);
      }
    }
  }
}
