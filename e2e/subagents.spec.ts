/**
 * Subagents in the UI: a scripted parent spawns two background children; the tree shows both with status, type and
 * spend; one is steered from the tree (its next model request carries the message, said to come from the person), the
 * other cancelled; a child's transcript opens read-only with the way back, its prompt labelled as the parent's and the
 * steer as the person's; children stay out of the sidebar.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

test('shows the subagent tree, steers and cancels children, and opens a child transcript', async ({ deskhand }) => {
  await deskhand.startModel(
    [
      {
        text: ['Starting two helpers.'],
        tools: [
          { name: 'spawn_subagent', args: { prompt: 'CHILD-ALPHA: write the notes', description: 'alpha helper', type: 'coder', background: true } },
          { name: 'spawn_subagent', args: { prompt: 'CHILD-BETA: wait for a while', description: 'beta helper', type: 'explore', background: true } },
        ],
      },
      { tools: [{ name: 'wait_subagents', args: { until: 'all', timeout_seconds: 300 } }] },
      { text: ['Both helpers are done.'] },
    ],
    {
      routes: {
        // Alpha first asks to write a file (it waits for the person: time to steer it), then answers.
        'CHILD-ALPHA': [{ tools: [{ name: 'write_file', args: { path: 'notes.txt', content: 'from alpha\n' } }] }, { text: ['alpha finished'] }],
        // Beta never answers until it is cancelled.
        'CHILD-BETA': [{ hang: true }],
      },
    },
  );
  const page = await deskhand.start();
  await deskhand.newConversation('Orchestrate');
  await deskhand.send('Start two helpers');

  const tree = page.getByRole('tree', { name: 'Subagent tree' });
  const alpha = tree.getByRole('treeitem', { name: /^Subagent alpha helper: / });
  const beta = tree.getByRole('treeitem', { name: /^Subagent beta helper: / });
  await expect(alpha).toHaveAccessibleName('Subagent alpha helper: waiting for approval', { timeout: 30_000 });
  await expect(beta).toHaveAccessibleName('Subagent beta helper: running');
  await expect(alpha).toContainText('coder');
  await expect(beta).toContainText('explore');
  await expect(alpha.getByLabel('Spend')).toContainText('tokens');

  // Steer alpha while it waits for its approval: the message reaches its next request.
  await alpha.getByRole('button', { name: 'Steer alpha helper' }).click();
  await alpha.getByRole('textbox', { name: 'Message to alpha helper' }).fill('Also mention the weekday.');
  await alpha.getByRole('button', { name: 'Send' }).click();
  await expect(alpha.getByRole('textbox', { name: 'Message to alpha helper' })).toHaveCount(0);
  await page.screenshot({ path: artifact(`${deskhand.kind}-subagent-tree.png`) });

  // Alpha's approval is in the parent's conversation, labelled with the child; approving it lets alpha go on.
  const card = deskhand.approvalCard();
  await expect(card).toContainText('alpha helper');
  await card.getByRole('button', { name: 'Approve' }).click();

  // Cancel beta.
  await beta.getByRole('button', { name: 'Cancel beta helper' }).click();
  await expect(beta).toHaveAccessibleName('Subagent beta helper: cancelled', { timeout: 20_000 });
  await expect(beta).toContainText('cancelled by the person');

  // Alpha ends with the steer in its second request, and the parent's wait returns.
  await expect(alpha).toHaveAccessibleName('Subagent alpha helper: done', { timeout: 60_000 });
  const alphaRequests = deskhand.requests().filter((r) => JSON.stringify(r.body.messages?.find((m) => m.role === 'user')?.content ?? '').includes('CHILD-ALPHA'));
  expect(alphaRequests).toHaveLength(2);
  expect(JSON.stringify(alphaRequests[0]!.body)).not.toContain('Also mention the weekday.');
  expect(JSON.stringify(alphaRequests[1]!.body)).toContain('Also mention the weekday.');
  // Sent from the tree, it reaches alpha as the person's words, not its parent agent's.
  const steered = alphaRequests[1]!.body.messages!.filter((m) => m.role === 'user').map((m) => String(m.content));
  expect(steered.at(-1)).toBe('[Message from the person you work for (the user, through Deskhand), not from your parent agent; sent while you work]\nAlso mention the weekday.');
  expect(readFileSync(join(deskhand.work, 'notes.txt'), 'utf8')).toBe('from alpha\n');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Both helpers are done.', { timeout: 30_000 });

  // Children are not in the sidebar.
  const sidebar = page.getByRole('navigation', { name: 'Conversations' });
  await expect(sidebar.getByRole('button', { name: /^Orchestrate/ })).toBeVisible();
  await expect(sidebar.getByRole('button', { name: /Subagent/ })).toHaveCount(0);

  // A child's transcript opens read-only, with the way back to its parent.
  await alpha.getByRole('button', { name: /alpha helper/ }).first().click();
  const bar = page.getByRole('region', { name: 'Subagent transcript' });
  await expect(bar).toContainText('Subagent (coder) of Orchestrate · done');
  // Its prompt is labelled as its parent's, the steer as the person's.
  await expect(page.getByRole('article', { name: 'From Orchestrate' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'From Orchestrate' })).toContainText('CHILD-ALPHA: write the notes');
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' })).toContainText('Also mention the weekday.');
  await expect(page.getByRole('main')).toContainText('alpha finished');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
  // Read-only: no Edit or Regenerate under its messages (copying stays).
  await expect(page.getByRole('main').getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(page.getByRole('main').getByRole('button', { name: 'Regenerate' })).toHaveCount(0);
  await expect(page.getByRole('main').getByRole('button', { name: 'Copy reply' }).first()).toBeVisible();
  // Its policy and sandbox are shown as its parent's, not offered for change.
  await expect(page.getByRole('main').getByText(/\(from its parent\)/)).toBeVisible();
  await expect(page.getByRole('main').getByRole('combobox')).toHaveCount(0);
  expect(page.url()).toMatch(/#c=conv_/);
  await page.screenshot({ path: artifact(`${deskhand.kind}-subagent-transcript.png`) });
  await bar.getByRole('button', { name: '← Back to Orchestrate' }).click();
  await expect(page.getByRole('main', { name: 'Conversation Orchestrate' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
});
