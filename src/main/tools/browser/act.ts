/**
 * browser_act: one action on an element of the latest snapshot, then the page is left to settle and the outline's
 * changed lines come back. High-risk with an approval pair (execute_browser_act): the person sees the action, the
 * element and the page. A `[redacted:NAME]` placeholder in `value` is a secret: the call always asks, the value is put
 * in just before the action and only on https or loopback pages, and the field is masked in screenshots. Filling a
 * password field with anything else always asks too. Uploads read only what the path guard allows; a click that
 * downloads saves into the workspace's `downloads/` folder, declared as a write.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool, type Effects } from '../../runtime/tool';
import { ACT_ACTIONS, type ActAction } from '../../services/browser/index';
import { pageLines, step, type PagesDeps } from './pages';

const PLACEHOLDER = /\[redacted:[A-Za-z0-9_.:-]{1,64}\]/;

const params = () => z
  .object({
    ref: z.string().regex(/^(f\d+)?e\d+$/, 'a ref such as e12 or f1e3, from browser_snapshot').describe('The element: a ref from the latest browser_snapshot.'),
    action: z.enum(ACT_ACTIONS as [ActAction, ...ActAction[]]),
    value: z
      .string()
      .max(100_000)
      .optional()
      .describe(
        'fill/type: the text (a [redacted:NAME] secret placeholder is typed only after approval, on https pages); press: a key such as Enter or ' +
          'Control+A; select: the option label (several: one per line); check: "false" to uncheck; upload: the file path(s), one per line.',
      ),
    dialog: z.enum(['accept', 'dismiss']).optional().describe('How to answer a confirm/prompt dialog this action opens (default dismiss).'),
    tab: z.string().min(1).max(40).regex(/^[\w.-]+$/).optional().describe('Tab name (default: the current tab).'),
  })
  .strict();
type Args = z.infer<ReturnType<typeof params>>;

const uploads = (args: Args, cwd: string): string[] =>
  (args.value ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((p) => (isAbsolute(p) ? p : resolve(cwd, p)));

const VERBS: Record<ActAction, string> = { click: 'Click', fill: 'Fill', type: 'Type into', press: 'Press a key in', select: 'Choose in', check: 'Check', hover: 'Hover over', upload: 'Upload to' };

export function createAct(deps: PagesDeps) {
  return defineTool({
    name: 'browser_act',
    description:
      'Act on one element of the latest browser_snapshot: click, fill (replace the text), type (key by key), press (a key), select (an option), ' +
      'check (or uncheck with value "false"), hover, or upload (files). Waits for the page to settle and returns only what changed in the outline ' +
      '(- gone, + new), plus dialogs, new tabs and downloads. Secret placeholders from ask_user_secret are typed only after a person approves, on https pages.',
    params,
    risk: 'high-risk',
    disclosure: 'private',
    facts: { sendsOut: true },
    async effects(args, ectx): Promise<Effects> {
      const e: Effects = { egress: true, network: true, secretArgs: ['value'] };
      if (args.action === 'upload') {
        const files = uploads(args, ectx.cwd);
        if (!files.length) return e;
        e.paths = { read: files };
      }
      // A click or key can start a download: it is saved into the workspace.
      if (args.action === 'click' || args.action === 'press') e.paths = { write: [join(ectx.cwd, 'downloads')] };
      if ((args.action === 'fill' || args.action === 'type') && !PLACEHOLDER.test(args.value ?? '') && ectx.conversationId) {
        const info = await deps.browser.refInfo(ectx.conversationId, args.ref, args.tab).catch(() => null);
        if (info?.password) {
          e.assessment = {
            risk: 'high-risk',
            reasons: [`${args.ref} is a password field on ${info.url}, and the value is not a secret placeholder`],
            alwaysAsk: 'filling a password field with text the model wrote',
          };
        }
      }
      return e;
    },
    pair: {
      executeName: 'execute_browser_act',
      async propose(args, ctx) {
        const url = deps.browser.currentUrl(ctx.conversationId, args.tab) ?? '(no page open)';
        const info = await deps.browser.refInfo(ctx.conversationId, args.ref, args.tab).catch(() => null);
        const what = info ? `${info.role}${info.name ? ` "${info.name}"` : ''} (${args.ref})` : args.ref;
        const value = args.value !== undefined && args.action !== 'click' && args.action !== 'hover' ? `: ${JSON.stringify(args.value)}` : '';
        return { description: `${VERBS[args.action]} ${what} on ${url}${value}`, preview: null };
      },
    },
    presentation: { title: 'Act on the page', icon: 'browser', summary: (a) => `${a.action} ${a.ref}` },
    timeoutMs: 60_000,
    async execute(args, ctx) {
      if ((args.action === 'fill' || args.action === 'type' || args.action === 'press' || args.action === 'select') && args.value === undefined) {
        throw new ToolError(`${args.action} needs a value (${args.action === 'press' ? 'a key such as Enter' : 'the text or option'}).`);
      }
      const files = args.action === 'upload' ? uploads(args, ctx.state.cwd) : undefined;
      if (args.action === 'upload' && !files?.length) throw new ToolError('upload needs the file path(s) in value, one per line.');
      // The runtime put the secret in just now; the redactor still knows it, which is how a secret value is recognised.
      const secret = args.value !== undefined && ctx.redact(args.value) !== args.value && PLACEHOLDER.test(ctx.redact(args.value));
      const r = await step(`${args.action} ${args.ref}`, () =>
        deps.browser.act(
          ctx.conversationId,
          {
            ref: args.ref,
            action: args.action,
            ...(args.value !== undefined ? { value: args.value } : {}),
            ...(files ? { files } : {}),
            ...(args.dialog ? { dialog: args.dialog } : {}),
            secret,
            downloadDir: join(ctx.state.cwd, 'downloads'),
          },
          args.tab,
        ),
      );
      const lines = pageLines(r);
      if (r.navigated) lines.push('The page navigated; take a browser_snapshot for the new page.');
      lines.push('', r.diff ? `Changes in the outline:\n${ctx.redact(r.diff)}` : 'Nothing visible in the outline changed.');
      return { output: lines.join('\n'), untrustedSource: `browser ${r.url}` };
    },
  });
}
