/**
 * ask_user_question (Spec II AskUserQuestion): 1–4 multiple-choice questions, each with 2–4 options, optionally
 * multi-select, with an automatic "Other" that takes the person's own words. The run waits for the answer (or parks;
 * `deskhand runs answer ID --value '{"answers": {"<question>": "<label or own words>"}}'` answers it from anywhere),
 * and the model receives each question with its answer. With `background` (Spec II) the call returns at once with a
 * `question` background task: the same request stays open, and the answer finishes the task (question-tasks.ts),
 * which wakes the conversation like any ended background task.
 */
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { TaskService } from '../../services/tasks';

const option = z
  .object({
    label: z.string().trim().min(1).max(60).describe('A few words.'),
    description: z.string().trim().max(300).describe('What it means.'),
  })
  .strict();

const question = z
  .object({
    question: z.string().trim().min(1).max(500).refine((q) => q.endsWith('?'), { error: 'each question must end with "?"' }).describe('Ends with "?".'),
    header: z.string().trim().max(12, { error: 'header may be at most 12 characters' }).optional().describe('Short label, e.g. "Database".'),
    options: z.array(option).min(2, { error: 'give at least 2 options' }).max(4, { error: 'give at most 4 options ("Other" is added automatically)' }).describe('"Other" (own words) is added.'),
    multi_select: z.boolean().optional().describe('Allow several choices.'),
  })
  .strict();

export const questionParams = () =>
  z
  .object({
    questions: z
      .array(question)
      .min(1, { error: 'ask at least one question' })
      .max(4, { error: 'ask at most 4 questions per call' })
      .refine((qs) => new Set(qs.map((q) => q.question)).size === qs.length, { error: 'questions must differ' })
      .describe('Asked together.'),
    background: z
      .boolean()
      .optional()
      .describe(
        'Do not wait: returns a task id; the answers come in a new message.',
      ),
  })
  .strict();

type QuestionArgs = z.infer<ReturnType<typeof questionParams>>;
export type QuestionData = { questions: { question: string; header: string | null; options: { label: string; description: string }[]; multiSelect: boolean }[] };
type Answers = Record<string, string | string[]>;
type Answered = { question: string; answers: { label: string; other: boolean }[] }[];

/** What the model reads for answered questions: the same text in the foreground and from a background task. */
export function formatAnswers(answered: unknown): string {
  if (!Array.isArray(answered)) throw new DeskhandError('internal', 'The question was not answered.');
  return (answered as Answered)
    .map((a) => `Q: ${a.question}\nA: ${a.answers.map((x) => (x.other ? `(their own words) ${x.label}` : x.label)).join('; ')}`)
    .join('\n\n');
}

const requestOf = (args: QuestionArgs) => ({
  kind: 'question',
  description: args.questions.length === 1 ? 'The agent asks you a question' : `The agent asks you ${args.questions.length} questions`,
  prompt: args.questions.map((q) => q.question).join('\n'),
  data: questionData(args),
});

/** What a question request carries to the UI and the terminal. */
export function questionData(args: QuestionArgs): QuestionData {
  return {
    questions: args.questions.map((q) => ({ question: q.question, header: q.header ?? null, options: q.options, multiSelect: !!q.multi_select })),
  };
}

/** The `question` input kind: every question answered, with an option's label or the person's own words ("Other"). */
export const questionKind: InputKind<{ answers: Answers }> = {
  kind: 'question',
  answer: z.strictObject({ answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])) }),
  accept({ answers }, data) {
    const { questions } = data as QuestionData;
    const out: { question: string; answers: { label: string; other: boolean }[] }[] = [];
    for (const q of questions) {
      const given = Object.prototype.hasOwnProperty.call(answers, q.question) ? answers[q.question] : undefined;
      if (given === undefined) throw new DeskhandError('usage', `No answer for "${q.question}". Answer every question (use its exact text as the key).`);
      const picked = (Array.isArray(given) ? given : [given]).map((a) => a.trim()).filter(Boolean);
      if (picked.length === 0) throw new DeskhandError('usage', `The answer to "${q.question}" is empty: choose an option or write your own answer.`);
      if (picked.length > 1 && !q.multiSelect) throw new DeskhandError('usage', `"${q.question}" takes one answer; ${picked.length} were given.`);
      out.push({
        question: q.question,
        answers: picked.map((a) => {
          const match = q.options.find((o) => o.label.toLowerCase() === a.toLowerCase());
          return match ? { label: match.label, other: false } : { label: a.slice(0, 2000), other: true };
        }),
      });
    }
    const unknown = Object.keys(answers).filter((k) => !questions.some((q) => q.question === k));
    if (unknown.length) throw new DeskhandError('usage', `"${unknown[0]!.slice(0, 100)}" is not one of the questions asked: ${questions.map((q) => `"${q.question}"`).join(', ')}.`);
    return out;
  },
  example: '{"answers": {"<question text>": "<option label or your own words>"}}',
  label: (data) => {
    const n = (data as QuestionData | undefined)?.questions?.length ?? 0;
    return `a question${n > 1 ? ` (${n} questions)` : ''} for the person`;
  },
};

/** The tool; `tasks` starts background questions (without it, `background` is refused). */
export const createAskUserQuestion = (tasks?: Pick<TaskService, 'startQuestion'>) =>
  defineTool({
    name: 'ask_user_question',
    description:
      'Ask the person multiple-choice questions for a decision only they can make. Not for permission to act: calls ' +
      'are approved separately.',
    details:
      '1–4 questions, each ending with "?", with 2–4 options (label + what it means) and an optional header of at most ' +
      '12 characters; multi_select allows several choices. You receive each question with the answer (an option ' +
      'label, or their own words marked as such). With background, task_output, wait_tasks and ' +
      'cancel_background_jobs work on the task.',
    params: questionParams,
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: {
      title: 'Ask you a question',
      icon: 'question',
      summary: (args) => (args.questions.length === 1 ? args.questions[0]!.question : `${args.questions.length} questions`),
    },
    // In the background the call does not wait: it opens the request itself, bound to a task (execute below).
    input: (args) => (args.background ? null : requestOf(args)),
    async execute(args, ctx) {
      if (!args.background) return { output: formatAnswers(ctx.answer) };
      if (!tasks || !ctx.openBackgroundRequest) {
        throw new DeskhandError('unsupported', 'This host cannot ask questions in the background; ask again without background.');
      }
      const open = ctx.openBackgroundRequest;
      // The request's id reaches the person's surfaces (input.requested); the model needs only the task's.
      const { task } = tasks.startQuestion({
        conversationId: ctx.conversationId,
        runId: ctx.runId,
        callId: ctx.callId,
        title: args.questions[0]!.question,
        open: (taskId) => open({ ...requestOf(args), taskId }),
      });
      return {
        output:
          `Started background question task ${task.id}; the person has not answered yet. ` +
          'Continue with other work: the answers are delivered to you when they are given. task_output shows them, ' +
          `wait_tasks waits for them, cancel_background_jobs withdraws the question.`,
      };
    },
  });
