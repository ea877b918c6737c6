/**
 * The scheduling family: reminders (a notification to the person at a time) and wake triggers / scheduled prompts
 * (this conversation runs again, headless, with a prompt). Both are held by the OS scheduler so they fire with the
 * app closed (`deskhand fire ID`); see docs/scheduling.md.
 */
import type { ToolDefinition } from '../../runtime/tool';
import type { Schedules } from '../../services/scheduler';
import { createAddReminder, createCancelReminder, createListReminders } from './reminders';
import { createCancelTrigger, createListTriggers, createRegisterTrigger } from './triggers';

export interface ScheduleDeps {
  schedules: Schedules;
}

export function createScheduleFamily(deps: ScheduleDeps): { tools: ToolDefinition[] } {
  const s = deps.schedules;
  return {
    tools: [
      createAddReminder(s),
      createListReminders(s),
      createCancelReminder(s),
      createRegisterTrigger(s),
      createListTriggers(s),
      createCancelTrigger(s),
    ] as ToolDefinition[],
  };
}
