/**
 * Orchestration in the UI: a workflow script the model starts is reviewed (high-risk: its approval shows the script)
 * and runs in the background; the Workflows panel shows its phases and result, and its end continues the conversation.
 * Coordinator mode on a real git repository: tower_init and an approved tower_plan put the mission board on screen
 * with the missions, their scopes and the review gate.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

const SCRIPT = "await phase('gather', async () => 'three facts'); await phase('write', async () => 'WORKFLOW-REPORT'); return 'WORKFLOW-REPORT';";

test('a workflow is reviewed, runs in the background and shows its phases; the tower board shows an approved plan', async ({ deskhand }) => {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: deskhand.work, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(deskhand.work, 'README.md'), '# demo\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'init');

  await deskhand.startModel([
    { tools: [{ name: 'workflow', args: { script: SCRIPT, args: 'demo' } }] },
    { text: ['Workflow started.'] },
    // The workflow's completion wakes the conversation.
    { text: ['The workflow finished.'] },
    { tools: [{ name: 'tower_init', args: { objective: 'Split the demo into an API and a UI' } }] },
    { tools: [{ name: 'tower_plan', args: { missions: [
      { id: 'api', title: 'The API', scope: ['src/api/**'], tasks: ['write the handler'] },
      { id: 'ui', title: 'The UI', scope: ['src/ui/**'], tasks: ['write the form'], depends: ['api'] },
    ] } }] },
    { text: ['Plan ready.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Orchestrate');
  await deskhand.send('Research the demo');

  // High-risk: the approval shows the script itself before anything runs.
  const card = page.getByRole('region', { name: 'Run a workflow' });
  await expect(card).toContainText("phase('gather'", { timeout: 30_000 });
  await card.getByRole('button', { name: 'Approve' }).click();

  const panel = page.getByRole('complementary', { name: 'Workflows' });
  const item = panel.getByRole('listitem', { name: 'Workflow Inline script: demo: done' });
  await expect(item).toBeVisible({ timeout: 30_000 });
  // Finished runs are folded; opening one shows each phase and the result.
  const head = item.getByRole('button', { name: /Inline script: demo/ });
  if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
  await expect(item.getByRole('list', { name: 'Phases of Inline script: demo' })).toContainText('gather');
  await expect(item.getByRole('list', { name: 'Phases of Inline script: demo' })).toContainText('write');
  await expect(item.getByLabel('Result of Inline script: demo')).toContainText('WORKFLOW-REPORT');
  await expect(page.getByRole('main')).toContainText('The workflow finished.', { timeout: 30_000 });
  // The woken turn's request carried the workflow's result.
  expect(JSON.stringify(deskhand.requests()[2])).toContain('WORKFLOW-REPORT');
  await page.screenshot({ path: artifact(`${deskhand.kind}-workflows-panel.png`) });

  await deskhand.send('Now coordinate the team');
  // tower_init is low-risk (it creates Deskhand's own worktree): under read-only it asks too.
  const init = page.getByRole('region', { name: 'Start coordinator mode' });
  await expect(init).toContainText('Split the demo', { timeout: 30_000 });
  await init.getByRole('button', { name: 'Approve' }).click();
  const plan = page.getByRole('region', { name: 'Plan the missions' });
  await expect(plan).toContainText('src/api/**', { timeout: 30_000 });
  await plan.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('main')).toContainText('Plan ready.', { timeout: 30_000 });
  const board = page.getByRole('complementary', { name: 'Mission board' });
  await expect(board).toContainText('Split the demo into an API and a UI');
  await expect(board.getByRole('listitem', { name: /^Mission api: / })).toContainText('src/api/**');
  await expect(board.getByRole('listitem', { name: /^Mission ui: / })).toContainText('after api');
  await expect(board.getByLabel('Review of api')).toHaveText('No review yet');
  await page.screenshot({ path: artifact(`${deskhand.kind}-mission-board.png`) });
  // Deskhand's integration worktree, never the person's checkout: their branch and files are as they were.
  expect(git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  expect(git('status', '--porcelain').trim()).toBe('');
});
