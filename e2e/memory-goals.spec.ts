/**
 * Goals and memory in the UI: the model proposes a goal, the person accepts it on the goal card with a one-turn budget,
 * the loop runs its cycle unattended and the Goal panel shows the budget used up and the cycle log; a lesson the model
 * proposed waits in Settings › Memory and lessons until the person accepts it there, which leaves a receipt.
 */
import { artifact, expect, test } from './support';

test('a goal accepted on its card runs its cycle, and a proposed lesson is accepted in Settings', async ({ deskhand }) => {
  await deskhand.startModel([
    { tools: [{ name: 'propose_goal', args: { objective: 'Print hello-goal', criteria: ['echo prints hello-goal'], budget: { turns: 3 } } }] },
    { text: ['Goal accepted.'], tools: [{ name: 'propose_lesson', args: { topic: 'migrations', lesson: 'Run the migrations before the tests.' } }] },
    { text: ['Lesson queued.'] },
    { tools: [{ name: 'report_goal_cycle', args: { status: 'continue', summary: 'first cycle' } }] },
    { text: ['cycle done'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Goal');
  await deskhand.send('Keep going until it prints hello-goal');

  const goalCard = page.getByRole('region', { name: 'Propose a goal' });
  await expect(goalCard).toContainText('Print hello-goal');
  await expect(goalCard).toContainText('echo prints hello-goal');
  await goalCard.getByRole('spinbutton', { name: 'Turn budget' }).fill('1');
  await goalCard.screenshot({ path: artifact(`${deskhand.kind}-goal-card.png`) });
  await goalCard.getByRole('button', { name: 'Accept goal' }).click();

  const lessonCard = page.getByRole('region', { name: 'Propose a lesson' });
  await expect(lessonCard).toContainText('does not clear low-risk');
  await lessonCard.getByRole('button', { name: 'Approve' }).click();

  const panel = page.getByRole('complementary', { name: 'Goal' });
  await expect(panel).toContainText('budget used up');
  await expect(panel.getByRole('list', { name: 'Cycle log' })).toContainText('Cycle 1: continue — first cycle');
  await expect(panel).toContainText('Turns: 1 / 1');
  await panel.screenshot({ path: artifact(`${deskhand.kind}-goal-panel.png`) });

  await page.getByRole('button', { name: 'Settings' }).click();
  const memory = page.getByRole('region', { name: 'Memory and lessons' });
  await memory.getByRole('tab', { name: /Lessons/ }).click();
  const lesson = memory.getByRole('listitem', { name: 'migrations (proposed)' });
  await expect(lesson).toContainText('Run the migrations before the tests.');
  await lesson.getByRole('button', { name: 'Accept' }).click();
  const accepted = memory.getByRole('listitem', { name: 'migrations (active)' });
  await expect(accepted).toBeVisible();
  await accepted.getByText('Changes (2)').click();
  await expect(accepted).toContainText('accept by person (Deskhand app)');
  await memory.screenshot({ path: artifact(`${deskhand.kind}-memory-settings.png`) });
});
