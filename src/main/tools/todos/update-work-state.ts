import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';

/** Work state is re-read after summaries and restarts; a bound keeps it from swallowing the context. */
const MAX_STATE_BYTES = 16_384;

export const updateWorkState = defineTool({
  name: 'update_work_state',
  description:
    'Record where you are in the current task (goal, findings, decisions, next steps) so it survives summarization and resuming later. ' +
    'Patches the stored state: keys you send replace old values, a null value deletes a key. Returns the whole state.',
  params: () => z
    .object({
      patch: z.record(z.string().min(1).max(100), z.unknown()).describe('Keys to set (null deletes the key).'),
    })
    .strict(),
  risk: 'read-only',
  disclosure: 'private',
  facts: { loadsWith: 'workstate', bookkeeping: true },
  presentation: { title: 'Note the work state', icon: 'todo' },
  async execute({ patch }, ctx) {
    const next: Record<string, unknown> = { ...ctx.state.workState };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
    const json = JSON.stringify(next, null, 2);
    if (Buffer.byteLength(json) > MAX_STATE_BYTES) {
      throw new ToolError(`Work state would be ${Buffer.byteLength(json)} bytes; the limit is ${MAX_STATE_BYTES}. Keep it to short notes.`);
    }
    ctx.state.workState = next;
    return { output: json };
  },
});
