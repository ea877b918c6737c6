import { z } from 'zod';
import { ToolError, errorMessage } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { MEMORY_LIMITS, MEMORY_SCOPES, type MemoryService } from '../../services/memory';

export const createProposeLesson = (memory: MemoryService, folderOf: (conversationId: string) => string) =>
  defineTool({
    name: 'propose_lesson',
    description:
      'Queue a rule you drew from your own mistake for the person to review. Writes nothing that takes effect: the lesson is used only after ' +
      'the person accepts it (Memory › Lessons in the app, or `deskhand memory accept ID`).',
    params: () => z
      .object({
        topic: z.string().min(1).max(MEMORY_LIMITS.topicChars).describe('What the lesson is about.'),
        lesson: z.string().min(1).describe(`The rule, in plain words (at most ${MEMORY_LIMITS.bodyBytes} bytes).`),
        scope: z.enum(MEMORY_SCOPES).optional().describe('Where it applies (default workspace).'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'private',
    facts: { reaches: ['memory'] },
    presentation: { title: 'Propose a lesson', icon: 'memory', summary: (a) => a.topic },
    async execute(args, ctx) {
      try {
        const { record } = memory.add(
          { scope: args.scope ?? 'workspace', topic: args.topic, body: args.lesson, quote: null },
          { folder: folderOf(ctx.conversationId), actor: `agent (${ctx.conversationId})`, conversationId: ctx.conversationId, kind: 'lesson', status: 'proposed', source: 'lesson' },
        );
        return { output: `Lesson ${record.id} is queued for the person's review. It does not apply until they accept it.` };
      } catch (err) {
        throw new ToolError(errorMessage(err));
      }
    },
  });
