/**
 * Input requests drawn by kind: the model asks questions (ask_user_question) and the person answers them on the card
 * — an option, several options and their own words — and the model receives each question with its answer; the
 * model asks for a file (ask_file_picker) and the person picks it (web: the folder browser; Electron: the native
 * dialog), after which the file is readable in the conversation without another approval.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { artifact, expect, test, type RecordedRequestLine } from './support';

/** The text of every tool result the model was sent in one request (OpenAI chat: role "tool"). */
function toolResults(request: RecordedRequestLine | undefined): string[] {
  return (request?.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

const DB = 'Which database should the service use?';
const ENVS = 'Which environments should get it?';

test('answers two questions on the question card, and the model receives each question with its answer', async ({ deskhand }) => {
  await deskhand.startModel([
    {
      text: ['Two decisions first.'],
      tools: [
        {
          name: 'ask_user_question',
          args: {
            questions: [
              {
                question: DB,
                header: 'Database',
                options: [
                  { label: 'PostgreSQL', description: 'A server; needs a running database.' },
                  { label: 'SQLite', description: 'One file next to the app.' },
                ],
              },
              {
                question: ENVS,
                header: 'Deploy',
                multi_select: true,
                options: [
                  { label: 'Staging', description: 'The shared test environment.' },
                  { label: 'Production', description: 'What customers use.' },
                ],
              },
            ],
          },
        },
      ],
    },
    { text: ['Noted: PostgreSQL, on staging and the preview stack.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Decisions');
  await deskhand.send('Set up the service');

  const card = page.getByRole('region', { name: 'Ask you a question' });
  await expect(card).toBeVisible();
  await expect(page.getByRole('article', { name: 'Tool call ask_user_question: waiting for your answer' })).toContainText(`2 questions`);
  await expect(card).toContainText('The agent asks you 2 questions');
  const db = card.getByRole('group', { name: DB });
  const envs = card.getByRole('group', { name: ENVS });
  await expect(db).toContainText('Database');
  // One choice (radio buttons) for the first question, several (checkboxes) for the second, "Other" on both.
  await expect(db.getByRole('radio')).toHaveCount(3);
  await expect(db.getByRole('radio', { name: 'PostgreSQL' })).toHaveAccessibleDescription('A server; needs a running database.');
  await expect(envs.getByRole('checkbox')).toHaveCount(3);
  await expect(envs.getByRole('checkbox', { name: 'Other' })).toBeVisible();

  // Submitting with a question unanswered says which one, in words, and sends nothing.
  await card.getByRole('button', { name: 'Submit answers' }).click();
  await expect(card.getByRole('alert')).toContainText(`Answer “${DB}”`);

  await db.getByRole('radio', { name: 'PostgreSQL' }).check();
  await envs.getByRole('checkbox', { name: 'Staging' }).check();
  // Typing one's own words chooses "Other"; Enter in the field submits (keyboard-complete).
  const own = envs.getByRole('textbox', { name: 'Your own answer' });
  await own.fill('the preview stack');
  await expect(envs.getByRole('checkbox', { name: 'Other' })).toBeChecked();
  await card.screenshot({ path: artifact(`${deskhand.kind}-question-request.png`) });
  await own.press('Enter');

  await expect(card).toBeHidden();
  await expect(page.getByText('Noted: PostgreSQL, on staging and the preview stack.')).toBeVisible();
  // The tool card shows the tool's own title and summary.
  const tool = page.getByRole('article', { name: 'Tool call ask_user_question: done' });
  await expect(tool).toContainText('Ask you a question');
  await expect(tool).toContainText('2 questions');

  const requests = deskhand.requests();
  expect(requests).toHaveLength(2);
  const [result] = toolResults(requests[1]);
  expect(result).toContain(`Q: ${DB}\nA: PostgreSQL`);
  expect(result).toContain(`Q: ${ENVS}\nA: Staging; (their own words) the preview stack`);
});

test('picks a file outside the workspace for ask_file_picker, and the run reads it without asking again', async ({ deskhand }) => {
  // A folder beside the working folder: outside the workspace, reached from the conversation's folder.
  const outside = join(dirname(deskhand.work), 'exports');
  mkdirSync(join(outside, 'older'), { recursive: true });
  writeFileSync(join(outside, 'report.csv'), 'region,total\nnorth,42\n');
  writeFileSync(join(outside, '.draft.csv'), 'not this one\n');
  const picked = join(outside, 'report.csv');
  await deskhand.startModel([
    { tools: [{ name: 'ask_file_picker', args: { prompt: 'Choose the sales export to analyse' } }] },
    { tools: [{ name: 'read_file', args: { path: picked } }] },
    { text: ['The north region totals 42.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Sales');
  await deskhand.send('Analyse the sales export');

  const card = page.getByRole('region', { name: 'Ask you to pick a file' });
  await expect(card).toContainText('Choose the sales export to analyse');
  if (deskhand.kind === 'electron') {
    // The desktop app asks main for its native dialog; the paths come from the dialog, never from the window.
    await deskhand.stubOpenDialog([picked]);
    await card.getByRole('button', { name: 'Choose…' }).click();
  } else {
    const browser = card.getByRole('group', { name: 'Folder browser' });
    // It opens on the conversation's folder; up one folder, then into the exports.
    await expect(browser.getByRole('list', { name: `Contents of ${deskhand.work}` })).toBeVisible();
    await browser.getByRole('button', { name: 'Parent folder' }).click();
    await browser.getByRole('button', { name: 'Open folder exports' }).click();
    const list = browser.getByRole('list', { name: `Contents of ${outside}` });
    // Folders first, then files, hidden entries last.
    await expect(list.getByRole('button')).toHaveText(['▭ older/', '▤ report.csv', '▤ .draft.csv']);
    await expect(browser.getByRole('button', { name: 'Submit' })).toBeDisabled();
    await list.getByRole('button', { name: 'Select file report.csv' }).click();
    await expect(list.getByRole('button', { name: 'Select file report.csv' })).toHaveAttribute('aria-pressed', 'true');
    await expect(browser.getByRole('list', { name: 'Selected paths' })).toContainText(picked);
    await card.screenshot({ path: artifact(`${deskhand.kind}-file-pick-request.png`) });
    await browser.getByRole('button', { name: 'Submit' }).click();
  }

  await expect(card).toBeHidden();
  // read_file of the picked file ran without an approval card, and the run finished.
  await expect(page.getByText('The north region totals 42.')).toBeVisible();
  await expect(page.getByRole('article', { name: 'Tool call read_file: done' })).toBeVisible();

  const requests = deskhand.requests();
  expect(requests).toHaveLength(3);
  expect(toolResults(requests[1]).join('\n')).toContain(`The person picked:\n${picked}`);
  expect(toolResults(requests[2]).join('\n')).toContain('north,42');
});
