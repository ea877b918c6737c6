/**
 * Input request kinds: everything the agent asks a person is one request `{requestId, kind, prompt, data}`, answered
 * with a JSON value its kind validates. `approval` is built in; families register the rest (secret, question,
 * file_pick, app grant…). A request waits in the UI or the terminal, or parks the run; any process answers it
 * (`deskhand runs answer REQUEST_ID --value JSON`).
 */
import { z } from 'zod';
import { GRANT_LIFETIMES, GRANT_SCOPES } from '../../../shared/rules';
import { DeskhandError } from '../../../shared/errors';

export interface InputKind<A = unknown> {
  kind: string;
  /** The answer's shape; a value that does not parse is refused with a message the person can act on. */
  answer: z.ZodType<A>;
  /**
   * Checks the answer against what was asked (`data` is the request's data) and does what answering means (a secret
   * is saved to the keyring). Returns what is stored and handed to the tool as `ctx.answer`: never a secret's value.
   * Throws DeskhandError('usage') with an actionable message when the answer does not fit the request.
   */
  accept(value: A, data: unknown): Promise<unknown> | unknown;
  /** A short line for a terminal or a list ("Answer 2 questions"). */
  label(data: unknown): string;
  /** An answer's JSON as a person would type it, for the error when one does not parse. */
  example: string;
  /**
   * For kinds a plain approval answers (an app grant): the answer `deskhand runs approve ID` (or an Approve button)
   * stands for, given the request's data. Kinds without it must be answered with their own value.
   */
  approve?(data: unknown): A;
}

export const approvalAnswerSchema = z.strictObject({
  approved: z.boolean(),
  always: z.boolean().optional(),
  /** Where an "always" rule applies (default: this conversation). Ignored when "always" adds a workspace root. */
  scope: z.enum(GRANT_SCOPES).optional(),
  /** How long it lasts (default: until revoked; a task's grant lasts its run). */
  lifetime: z.enum(GRANT_LIFETIMES).optional(),
  reason: z.string().max(2000).optional(),
  /** Where the person answered ("the web UI", "the CLI"…), for the tool card after a reload. */
  by: z.string().max(100).optional(),
});
export type ApprovalAnswer = z.infer<typeof approvalAnswerSchema>;

/** The registered kinds. `approval` answers go through the approval path; the rest through their kind. */
export class InputKinds {
  private readonly kinds = new Map<string, InputKind>();

  register(kind: InputKind): () => void {
    if (kind.kind === 'approval' || this.kinds.has(kind.kind)) throw new Error(`input kind registered twice: ${kind.kind}`);
    this.kinds.set(kind.kind, kind);
    return () => this.kinds.delete(kind.kind);
  }

  get(kind: string): InputKind | undefined {
    return this.kinds.get(kind);
  }

  names(): string[] {
    return ['approval', ...this.kinds.keys()];
  }

  schemaOf(kind: string): Record<string, unknown> {
    const schema = kind === 'approval' ? approvalAnswerSchema : this.kinds.get(kind)?.answer;
    return schema ? (z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>) : {};
  }

  /** Parses an answer for `kind`; errors name what is wrong in words a person can act on. */
  parse(kind: string, value: unknown): unknown {
    const schema = kind === 'approval' ? approvalAnswerSchema : this.kinds.get(kind)?.answer;
    if (!schema) throw new DeskhandError('usage', `This request is of kind "${kind}", which this build of Deskhand cannot answer.`);
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join('.') : 'the value'}: ${i.message}`)
      .join('; ');
    throw new DeskhandError('usage', `That is not an answer to a ${kind} request (${problems}). Expected JSON like ${kind === 'approval' ? '{"approved": true}' : this.kinds.get(kind)!.example}.`);
  }
}

/**
 * An answer (or a refusal) to a request that belongs to a background task (ask_user_question with `background`):
 * handed to the host's task service, never to the tool call that opened it. `answer` is what the kind accepted.
 */
export type BackgroundAnswer =
  | { taskId: string; requestId: string; kind: string; declined: false; answer: unknown }
  | { taskId: string; requestId: string; kind: string; declined: true; reason: string | null };
