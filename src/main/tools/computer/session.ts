/** computer_handoff (the person does a step themselves; always asks; clears observations) and computer_end. */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { ComputerUse } from '../../services/computer/index';

export function createComputerHandoff(computer: ComputerUse) {
  return defineTool({
    name: 'computer_handoff',
    description:
      'Pause and ask the person to do a step themselves (sign in, solve a captcha, anything you must not do). Always ' +
      'asks; continues when they approve (done) and clears every earlier observation, so observe again afterwards.',
    params: () => z.object({ instructions: z.string().trim().min(1).max(2000).describe('What the person should do, in plain words.') }).strict(),
    risk: 'low-risk',
    disclosure: 'private',
    effects: () => ({ assessment: { risk: 'low-risk', reasons: ['hands a step of computer use to the person'], alwaysAsk: 'a handoff', rulePattern: null } }),
    pair: { executeName: 'execute_computer_handoff', propose: async (a) => ({ description: `Your turn: ${a.instructions}`, preview: a.instructions }) },
    presentation: { title: 'Hand a step to you', icon: 'desktop', summary: (a) => a.instructions.slice(0, 80) },
    async execute(_args, ctx) {
      computer.clearObservations(ctx.runId);
      return { output: 'The person did the step and approved. Earlier refs are cleared: observe again before acting.' };
    },
  });
}

export function createComputerEnd(computer: ComputerUse) {
  return defineTool({
    name: 'computer_end',
    description: 'Stop using the computer: release the session and forget observations (refs). Grants stay; the screenshots stay in the person\'s tool cards until the log retention deletes them.',
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'Stop using the computer', icon: 'desktop' },
    async execute(_args, ctx) {
      const { screenshots } = await computer.end(ctx.runId);
      return { output: `Computer use ended; ${screenshots} screenshot${screenshots === 1 ? '' : 's'} kept for the person's tool cards (deleted after the log retention).` };
    },
  });
}
