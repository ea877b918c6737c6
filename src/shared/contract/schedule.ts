/** The contract's `schedule` method: reminders and triggers with their next fire, and the fires with their runs. */
import { z } from 'zod';

export const scheduleItemSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['reminder', 'trigger']),
  status: z.enum(['active', 'paused', 'done', 'cancelled', 'expired']),
  text: z.string(),
  cron: z.string().nullable(),
  conversationId: z.string().nullable(),
  /** Epoch ms of the next fire, and the same time written out in the person's zone. */
  nextAt: z.number().nullable(),
  nextAtText: z.string().nullable(),
  expiresAt: z.number().nullable(),
  /** `at job 12`, or why the in-app ticker holds it. */
  heldBy: z.string(),
});

export const scheduleFireSchema = z.strictObject({
  id: z.string(),
  scheduleId: z.string(),
  dueAt: z.number(),
  /** When it really fired (the claim), not when it was due: the difference is how late it was. */
  firedAt: z.number(),
  status: z.string(),
  runId: z.string().nullable(),
  via: z.string(),
  coalesced: z.number(),
  detail: z.string().nullable(),
});

export const scheduleMethod = {
  params: z.strictObject({
    action: z.enum(['list', 'cancel', 'pause', 'resume', 'snooze', 'runNow']).default('list'),
    id: z.string().regex(/^(rem|trg)_[0-9a-f]{8}$/, 'Not a reminder or trigger id.').optional(),
    minutes: z.number().int().min(1).max(7 * 24 * 60).optional(),
  }),
  result: z.strictObject({ items: z.array(scheduleItemSchema), fires: z.array(scheduleFireSchema), message: z.string().nullable() }),
};

export type ScheduleItemView = z.infer<typeof scheduleItemSchema>;
export type ScheduleFireView = z.infer<typeof scheduleFireSchema>;
