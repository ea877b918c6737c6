/**
 * The change ledger's contract (docs/rewind.md): what each of the person's turns changed on disk, one path's diff,
 * and a rewind — files, conversation or both, as a dry run first — and its redo. Kept beside contract.ts. Pure.
 */
import { z } from 'zod';

const conversationIdSchema = z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id');
const messageIdSchema = z.string().regex(/^m\d{1,15}$/, 'not a message id (m123)');

export const changeKindSchema = z.enum(['created', 'modified', 'deleted', 'mode']);

export const changedPathSchema = z.strictObject({
  path: z.string(),
  kind: changeKindSchema,
  /** What it is (after the change; before it when deleted). */
  type: z.enum(['file', 'dir', 'symlink', 'ignored', 'other']),
  /** Its previous state can be put back. */
  restorable: z.boolean(),
  /** An ignored folder (dependencies, build output): "changed, not kept". */
  ignored: z.boolean(),
  /** Lines added and removed (text files; null when not diffed). */
  added: z.number().int().nullable(),
  removed: z.number().int().nullable(),
});
export type ChangedPathView = z.infer<typeof changedPathSchema>;

export const rewindItemSchema = z.strictObject({
  path: z.string(),
  action: z.enum(['restored', 'removed', 'recreated', 'unchanged', 'kept', 'not-restorable']),
  reason: z.string().nullable(),
});
export type RewindItemView = z.infer<typeof rewindItemSchema>;

export const changeMethods = {
  /** Per turn of the person (their message's id), the paths its run changed; only turns that changed something. */
  listChanges: {
    params: z.strictObject({ conversationId: conversationIdSchema }),
    result: z.strictObject({
      turns: z.array(z.strictObject({ turn: z.number().int(), messageId: z.string(), runId: z.string().nullable(), total: z.number().int(), changes: z.array(changedPathSchema) })),
      /** The conversation's last rewind (a redo is one too): what "Redo" takes back. */
      lastRewind: z
        .strictObject({
          id: z.string(),
          at: z.number(),
          to: z.string().nullable(),
          /** It was itself a redo. */
          redo: z.boolean(),
          paths: z.number().int(),
          /** Redo is offered: not a redo itself, and no turn changed files since. */
          redoable: z.boolean(),
        })
        .nullable(),
    }),
  },
  /** One changed path of a turn, as a unified diff from the kept bytes (null with a note for folders, binaries…). */
  getChangeDiff: {
    params: z.strictObject({ conversationId: conversationIdSchema, messageId: messageIdSchema, path: z.string().min(1).max(4096), texts: z.boolean().default(false) }),
    result: z.strictObject({
      path: z.string(),
      kind: changeKindSchema,
      diff: z.string().nullable(),
      note: z.string().nullable(),
      /** With `texts`: the whole text before ('' when created) and after ('' when deleted); null when not text. */
      oldText: z.string().nullable().optional(),
      newText: z.string().nullable().optional(),
    }),
  },
  /**
   * Back to before one of the person's messages (`to`): files, conversation (later messages kept as a branch) or
   * both; `dryRun` lists what would happen and changes nothing. `redo` takes the last rewind's files back instead.
   */
  rewind: {
    params: z.strictObject({
      conversationId: conversationIdSchema,
      to: messageIdSchema.optional(),
      redo: z.boolean().default(false),
      mode: z.enum(['files', 'conversation', 'both']).default('both'),
      dryRun: z.boolean().default(false),
    }),
    result: z.strictObject({
      dryRun: z.boolean(),
      files: z.strictObject({ items: z.array(rewindItemSchema), setId: z.string().nullable() }).nullable(),
      conversation: z.strictObject({ branch: z.string().nullable(), from: z.string().nullable() }).nullable(),
    }),
  },
} as const;

export const CHANGE_METHOD_NAMES = ['listChanges', 'getChangeDiff', 'rewind'] as const;
