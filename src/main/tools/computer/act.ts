/**
 * computer_pointer, computer_input, computer_foreground: acting in a granted app. By ref through the element's
 * accessibility action or editable text where it offers one, else synthesized input at the element's centre. The
 * service re-checks, at the moment of acting, that the target (and for synthesized input the window that would get
 * it) belongs to the app with the capability. These tools send material into other apps: egress (Spec I).
 */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type ToolContext } from '../../runtime/tool';
import type { ActResult, ComputerUse } from '../../services/computer/index';
import { appName, appSource } from './grant';
import { guarded } from './observe';

const ref = z.string().trim().regex(/^e\d+$/, 'A ref looks like e7 (from the latest computer_observe).').describe('An element ref from the latest observation of the window, e.g. "e7".');

function result(r: ActResult): string {
  const thumbs = [r.before ? `Before: ${r.before}` : null, r.after ? `After: ${r.after}` : null].filter(Boolean).join('\n');
  return `Done: ${r.done}.${thumbs ? `\n${thumbs}` : ''}\nObserve again (or computer_wait) to see the result; earlier refs of a changed window may be gone.`;
}

function target(computer: ComputerUse, ctx: Pick<ToolContext, 'runId'>, app: string, r?: string, x?: number, y?: number): string {
  if (r) return computer.describeRef(ctx.runId, app, r) ?? `${r} (not in the latest observation)`;
  if (x !== undefined && y !== undefined) return `the point (${x}, ${y})`;
  return 'the focused element';
}

export function createComputerPointer(computer: ComputerUse) {
  return defineTool({
    name: 'computer_pointer',
    description:
      'Click, double-click, right-click or scroll in a granted app, on an element by ref (preferred: its accessibility ' +
      'action is used when it offers one, otherwise a synthesized click at its centre) or at screen coordinates x,y. ' +
      'Refused when the target no longer belongs to the app (another window in front): observe again or use ' +
      'computer_foreground. Needs the pointer grant.',
    params: () => z
      .object({
        app: appName,
        ref: ref.optional(),
        x: z.number().int().min(0).max(100_000).optional().describe('Screen x (with y) when there is no ref.'),
        y: z.number().int().min(0).max(100_000).optional(),
        action: z.enum(['click', 'double_click', 'right_click', 'scroll']).describe('What to do.'),
        dx: z.number().int().min(-50).max(50).optional().describe('Scroll steps right (negative: left).'),
        dy: z.number().int().min(-50).max(50).optional().describe('Scroll steps down (negative: up); default 3 for scroll.'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'private',
    facts: { sendsOut: true },
    effects: (a) => ({ apps: [{ app: a.app, capability: 'pointer' }], egress: true, actsOnSource: appSource(a.app) }),
    pair: {
      executeName: 'execute_computer_pointer',
      propose: async (a, ctx) => ({ description: `${a.action.replace('_', ' ')} ${target(computer, ctx, a.app, a.ref, a.x, a.y)} in ${a.app}`, preview: null }),
    },
    presentation: { title: 'Click in an app', icon: 'desktop', summary: (a) => `${a.action} ${a.ref ?? `${a.x},${a.y}`} in ${a.app}` },
    async execute(args, ctx) {
      const r = await guarded(ctx, () =>
        computer.pointer(
          ctx.runId,
          {
            app: args.app,
            action: args.action,
            ...(args.ref ? { ref: args.ref } : {}),
            ...(args.x !== undefined ? { x: args.x } : {}),
            ...(args.y !== undefined ? { y: args.y } : {}),
            ...(args.dx !== undefined ? { dx: args.dx } : {}),
            ...(args.dy !== undefined ? { dy: args.dy } : {}),
            personApproved: !!ctx.approvedByPerson,
          },
          ctx.signal,
        ),
      );
      return { output: result(r) };
    },
  });
}

export function createComputerInput(computer: ComputerUse) {
  return defineTool({
    name: 'computer_input',
    description:
      'Type text into an element of a granted app (by ref: through its editable text when it offers one, inserted at the ' +
      'caret, or replacing all with `replace: true`; otherwise typed with synthesized keys after focusing it) and/or ' +
      'press a key or shortcut (`Return`, `Tab`, `ctrl+s`). Without a ref, keys go to the app\'s focused window, which ' +
      'must be in front. A saved secret may be typed as [redacted:NAME]: it is entered only after the person approves ' +
      'and never echoed. Needs the input grant.',
    params: () => z
      .object({
        app: appName,
        ref: ref.optional(),
        text: z.string().max(10_000).optional().describe('Text to type.'),
        key: z.string().trim().min(1).max(60).optional().describe('A key or combination, pressed after the text: Return, Escape, Tab, ctrl+s, shift+Tab.'),
        replace: z.boolean().optional().describe('Replace the element\'s whole text instead of inserting at the caret (editable text only).'),
      })
      .strict(),
    risk: 'high-risk',
    disclosure: 'private',
    facts: { sendsOut: true },
    effects: (a) => ({ apps: [{ app: a.app, capability: 'input' }], egress: true, secretArgs: ['text'], actsOnSource: appSource(a.app) }),
    pair: {
      executeName: 'execute_computer_input',
      propose: async (a, ctx) => ({
        description: `${a.text !== undefined ? `Type ${a.text.length} characters into ${target(computer, ctx, a.app, a.ref)}` : ''}${a.text !== undefined && a.key ? ', then ' : ''}${a.key ? `press ${a.key}` : ''} in ${a.app}`,
        preview: a.text ?? null,
      }),
    },
    presentation: { title: 'Type in an app', icon: 'desktop', summary: (a) => `${a.key ?? ''}${a.text !== undefined ? ` ${a.text.length} chars` : ''}${a.ref ? ` into ${a.ref}` : ''} in ${a.app}`.trim() },
    async execute(args, ctx) {
      const r = await guarded(ctx, () =>
        computer.input(
          ctx.runId,
          {
            app: args.app,
            ...(args.ref ? { ref: args.ref } : {}),
            ...(args.text !== undefined ? { text: args.text } : {}),
            ...(args.key ? { key: args.key } : {}),
            replace: !!args.replace,
            personApproved: !!ctx.approvedByPerson,
          },
          ctx.signal,
        ),
      );
      return { output: result(r) };
    },
  });
}

/** What computer_foreground does after raising the window: nothing, a pointer action, typing/keys, or both. */
function foregroundFollowUp(a: { action?: string; text?: string; key?: string }): { pointer: boolean; input: boolean } {
  return { pointer: a.action !== undefined, input: a.text !== undefined || a.key !== undefined };
}

export function createComputerForeground(computer: ComputerUse) {
  return defineTool({
    name: 'computer_foreground',
    description:
      'Bring a granted app\'s window to the front (so synthesized clicks and keys reach it), then, in the same call, click or ' +
      'scroll (`action` with a ref or x,y) and/or type `text` and press `key` in it, exactly as computer_pointer and ' +
      'computer_input do. Needs the foreground grant, plus the pointer grant for an action and the input grant for text ' +
      'or keys. A pointer action runs before the typing.',
    params: () => z
      .object({
        app: appName,
        action: z.enum(['click', 'double_click', 'right_click', 'scroll']).optional().describe('A pointer action once the window is in front.'),
        ref: ref.optional().describe('The element to click or type into (a ref of the latest observation).'),
        x: z.number().int().min(0).max(100_000).optional().describe('Screen x (with y) for the pointer action when there is no ref.'),
        y: z.number().int().min(0).max(100_000).optional(),
        dx: z.number().int().min(-50).max(50).optional().describe('Scroll steps right (negative: left).'),
        dy: z.number().int().min(-50).max(50).optional().describe('Scroll steps down (negative: up); default 3 for scroll.'),
        text: z.string().max(10_000).optional().describe('Text to type once the window is in front.'),
        key: z.string().trim().min(1).max(60).optional().describe('A key or combination pressed after the text: Return, Escape, ctrl+s.'),
        replace: z.boolean().optional().describe('Replace the element\'s whole text instead of inserting at the caret (editable text only).'),
      })
      .strict(),
    risk: 'high-risk',
    disclosure: 'private',
    facts: { sendsOut: true },
    effects: (a) => {
      const then = foregroundFollowUp(a);
      return {
        apps: [
          { app: a.app, capability: 'foreground' as const },
          ...(then.pointer ? [{ app: a.app, capability: 'pointer' as const }] : []),
          ...(then.input ? [{ app: a.app, capability: 'input' as const }] : []),
        ],
        egress: true,
        secretArgs: ['text'],
        actsOnSource: appSource(a.app),
      };
    },
    pair: {
      executeName: 'execute_computer_foreground',
      propose: async (a, ctx) => {
        const then: string[] = [];
        if (a.action) then.push(`${a.action.replace('_', ' ')} ${target(computer, ctx, a.app, a.ref, a.x, a.y)}`);
        if (a.text !== undefined) then.push(`type ${a.text.length} characters${a.action ? '' : ` into ${target(computer, ctx, a.app, a.ref)}`}`);
        if (a.key) then.push(`press ${a.key}`);
        return { description: `Bring ${a.app} to the front${then.length ? `, then ${then.join(', then ')}` : ''}`, preview: a.text ?? null };
      },
    },
    presentation: { title: 'Bring an app to the front', icon: 'desktop', summary: (a) => [a.app, a.action, a.key, a.text !== undefined ? `${a.text.length} chars` : undefined].filter(Boolean).join(' · ') },
    async execute(args, ctx) {
      const then = foregroundFollowUp(args);
      if (!then.pointer && (args.x !== undefined || args.y !== undefined || args.dx !== undefined || args.dy !== undefined)) {
        throw new ToolError('x, y, dx and dy belong to a pointer action: give `action` too (click, double_click, right_click or scroll).');
      }
      const personApproved = !!ctx.approvedByPerson;
      const done: string[] = [];
      const thumbs: ActResult[] = [];
      const raised = await guarded(ctx, () => computer.foreground(ctx.runId, { app: args.app, personApproved }, ctx.signal));
      done.push(raised.done);
      if (then.pointer) {
        const r = await guarded(ctx, () =>
          computer.pointer(
            ctx.runId,
            {
              app: args.app,
              action: args.action!,
              ...(args.ref ? { ref: args.ref } : {}),
              ...(args.x !== undefined ? { x: args.x } : {}),
              ...(args.y !== undefined ? { y: args.y } : {}),
              ...(args.dx !== undefined ? { dx: args.dx } : {}),
              ...(args.dy !== undefined ? { dy: args.dy } : {}),
              personApproved,
            },
            ctx.signal,
          ),
        );
        done.push(r.done);
        thumbs.push(r);
      }
      if (then.input) {
        // After a click the keys go where the click put the focus; without one, to the ref (or the focused element).
        const r = await guarded(ctx, () =>
          computer.input(
            ctx.runId,
            {
              app: args.app,
              ...(args.ref && !then.pointer ? { ref: args.ref } : {}),
              ...(args.text !== undefined ? { text: args.text } : {}),
              ...(args.key ? { key: args.key } : {}),
              replace: !!args.replace,
              personApproved,
            },
            ctx.signal,
          ),
        );
        done.push(r.done);
        thumbs.push(r);
      }
      return { output: result({ done: done.join(', then '), before: thumbs[0]?.before ?? null, after: thumbs.at(-1)?.after ?? null }) };
    },
  });
}
