/**
 * An MCP server's form (elicitation) in the conversation: a real MCP server (test/extensions/current-mcp-server.mjs,
 * added with `deskhand mcp add` as a person would) asks during a call; the form drawn from its schema refuses an
 * answer that does not fit (in words), takes one that does, and the server — not the model — receives it: the server's
 * log has the answer, and the model's next request has only the tool's result.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, ROOT, test, type RecordedRequestLine } from './support';

/** The CLI over the test's data folder (given first: what follows `--` is the server's own command line). */
function cli(args: string[], dataDir: string): string {
  const e: NodeJS.ProcessEnv = { ...process.env, DESKHAND_HOME: dataDir };
  return execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), args[0]!, args[1]!, '--data-dir', dataDir, ...args.slice(2)], { env: e, encoding: 'utf8' });
}

function toolResults(request: RecordedRequestLine | undefined): string[] {
  return (request?.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

test('an MCP server\'s form: a wrong answer is refused in words, the right one reaches the server and not the model', async ({ deskhand }) => {
  const log = join(deskhand.work, '..', 'mcp-log.jsonl');
  cli(['mcp', 'add', 'cur', '--tier', 'read-only', '--env', `MCP_LOG=${log}`, '--', process.execPath, join(ROOT, 'test/extensions/current-mcp-server.mjs')], deskhand.dataDir);
  // Off in a new conversation: the model loads the family first.
  await deskhand.startModel([{ tools: [{ name: 'search_tools', args: { query: 'mcp__cur__book' } }] }, { tools: [{ name: 'mcp__cur__book', args: {} }] }, { text: ['Booked.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Booking');
  await deskhand.send('Book two seats');

  const form = page.getByRole('form', { name: 'Form of MCP server cur' });
  await expect(form).toBeVisible();
  const card = page.locator('.elicitation-card');
  await expect(card).toContainText('How many seats, and for whom?');
  await expect(card).toContainText('asked by MCP server cur');
  await form.getByLabel('Name (required)').fill('Ada Lovelace');
  await form.getByLabel('seats (required)').fill('20');
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(card.getByRole('alert')).toContainText('seats: at most 10');

  await form.getByLabel('seats (required)').fill('2');
  await form.getByLabel('meal').selectOption('veg');
  await card.screenshot({ path: artifact(`${deskhand.kind}-mcp-elicitation.png`) });
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(form).toBeHidden();
  await expect(page.getByText('Booked.')).toBeVisible();

  const answers = existsSync(log)
    ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { elicitResult?: unknown }).flatMap((e) => (e.elicitResult ? [e.elicitResult] : []))
    : [];
  expect(answers).toEqual([{ action: 'accept', content: { name: 'Ada Lovelace', seats: 2, meal: 'veg' } }]);
  const requests = deskhand.requests();
  expect(requests).toHaveLength(3);
  expect(toolResults(requests[2]).at(-1)).toContain('booked 2 seats for Ada Lovelace');
  expect(JSON.stringify(requests[2]!.body)).not.toContain('"meal"');
});
