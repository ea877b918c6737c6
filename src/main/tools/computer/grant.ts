/**
 * computer_apps and computer_grant_app: what is running and granted, and the lasting grant asked in the conversation
 * as an input request of kind `app_grant` (parks when nobody can answer; `deskhand runs approve ID` grants exactly
 * what was asked; an answer may narrow it, never widen it).
 */
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import type { InputKind } from '../../runtime/loop/input-kinds';
import { CAPABILITIES, type AppGrant, type Capability, type ComputerUse } from '../../services/computer/index';

export const appName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('The app as computer_apps names it (its accessibility name, usually the executable name, e.g. "zenity").');

/** The untrusted source an app's own outline carries, and the one its input and pointer calls act on (Effects.actsOnSource). */
export const appSource = (app: string) => `app ${app}`;

export interface AppGrantData {
  app: string;
  /** What the request asks for: what was asked minus what the app already holds. */
  capabilities: Capability[];
  /** What the app already holds when the request opens (kept: grants add up). */
  already?: Capability[];
  minutes: number | null;
  reason: string | null;
}

const CAP_WORDS: Record<Capability, string> = {
  observe: 'read its windows (outline and screenshots)',
  pointer: 'click and scroll in it',
  input: 'type and press keys in it',
  foreground: 'bring it to the front',
};

/** The `app_grant` kind: approving grants exactly what was asked; `{capabilities}` may narrow it. */
export function appGrantKind(computer: Pick<ComputerUse, 'grants'>): InputKind<{ grant: boolean; capabilities?: Capability[] }> {
  return {
    kind: 'app_grant',
    answer: z.strictObject({
      grant: z.literal(true),
      capabilities: z.array(z.enum(CAPABILITIES)).min(1).optional(),
    }),
    accept(value, data) {
      const d = data as AppGrantData;
      const caps = value.capabilities ?? d.capabilities;
      const extra = caps.filter((c) => !d.capabilities.includes(c));
      if (extra.length) throw new DeskhandError('usage', `The agent asked for ${d.capabilities.join(', ')}; ${extra.join(', ')} cannot be granted through this request.`);
      const g = computer.grants.grant(d.app, caps, d.minutes);
      // `capabilities`: everything the app now holds (grants add up); `granted`: what this answer added.
      return { app: g.app, capabilities: g.capabilities, granted: CAPABILITIES.filter((c) => caps.includes(c)), expiresAt: g.ends?.[caps[0]!] ?? g.expiresAt };
    },
    approve: (data) => ({ grant: true as const, capabilities: (data as AppGrantData).capabilities }),
    example: '{"grant": true} (or {"grant": true, "capabilities": ["observe"]} to grant less)',
    label: (data) => `a request to let Deskhand use ${(data as AppGrantData | undefined)?.app ?? 'an app'}`,
  };
}

export function describeGrant(g: AppGrant): string {
  const until = g.expiresAt ? `until ${new Date(g.expiresAt).toISOString()}` : 'until revoked';
  return `${g.app}: ${g.capabilities.join(', ')} (${until})`;
}

export function createComputerApps(computer: ComputerUse) {
  return defineTool({
    name: 'computer_apps',
    description:
      'List the desktop apps that are running, with their windows, and which are granted to you and for what ' +
      '(observe, pointer, input, foreground). Every other computer_* tool takes an app by the name listed here. Call ' +
      'it first; an app that is not granted must be asked for with computer_grant_app.',
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    presentation: { title: 'List desktop apps', icon: 'desktop', result: 'list' },
    async execute() {
      const missing = await computer.missing();
      if (missing) throw new ToolError(missing, 'unsupported');
      const { apps, grants } = await computer.apps();
      const lines = apps.map((a) => {
        const g = grants.find((x) => x.app === a.name);
        const wins = a.windows.map((w) => `${JSON.stringify(w.title)}${w.active ? ' (in front)' : ''}`).join(', ') || 'no windows';
        return `- ${a.name} (pid ${a.pid})${a.accessible ? '' : ' [no accessibility tree]'}: ${wins}; ${g ? `granted ${g.capabilities.join(', ')}` : 'not granted'}`;
      });
      const granted = grants.length ? grants.map(describeGrant).join('\n') : 'none';
      return { output: `Running apps:\n${lines.join('\n') || '(none)'}\n\nGrants:\n${granted}`, untrustedSource: 'computer_apps (window titles)' };
    },
  });
}

/** `The person granted "zenity": input …` → what the finished card's summary says was granted. */
const GRANTED_LINE = /^The person granted "(.*)": ([a-z]+(?:, [a-z]+)*)(?: until| \(|\.)/;
const HELD_LINE = /^"(.*)" already holds ([a-z]+(?:, [a-z]+)*)/;

/** The grant itself is written when the person answers (the app_grant kind's accept), not by this call. */
export function createComputerGrantApp(computer: ComputerUse) {
  return defineTool({
    name: 'computer_grant_app',
    description:
      'Ask the person for a lasting grant to use one desktop app: observe (read its windows), pointer (click, scroll), ' +
      'input (type, keys), foreground (bring it to the front). All four when none are named; ask only for what the ' +
      'task needs. The person may grant less or refuse. `minutes` limits the grant; without it, it lasts until revoked.',
    params: () => z
      .object({
        app: appName,
        capabilities: z.array(z.enum(CAPABILITIES)).min(1).optional().describe('What to ask for (default all four).'),
        minutes: z.number().int().min(1).max(60 * 24 * 30).optional().describe('How long the grant lasts (default: until revoked).'),
        reason: z.string().trim().max(500).optional().describe('Why you need it, shown to the person.'),
      })
      .strict(),
    risk: 'low-risk',
    disclosure: 'private',
    presentation: {
      title: 'Ask to use an app',
      icon: 'desktop',
      summary: (a) => `${a.app}: ${(a.capabilities ?? CAPABILITIES).join(', ')}`,
      doneSummary: (_a, output) => {
        const granted = GRANTED_LINE.exec(output);
        if (granted) return `${granted[1]}: granted ${granted[2]}`;
        const held = HELD_LINE.exec(output);
        return held ? `${held[1]}: already granted ${held[2]}` : null;
      },
    },
    input(args) {
      const asked = args.capabilities ? CAPABILITIES.filter((c) => args.capabilities!.includes(c)) : [...CAPABILITIES];
      const already = computer.grants.get(args.app)?.capabilities ?? [];
      const caps = asked.filter((c) => !already.includes(c));
      // Everything asked is already granted: nothing to ask (execute says so).
      if (!caps.length) return null;
      const data: AppGrantData = { app: args.app, capabilities: caps, already, minutes: args.minutes ?? null, reason: args.reason ?? null };
      const how = caps.map((c) => `- ${c}: ${CAP_WORDS[c]}`).join('\n');
      const kept = already.length ? `\nAlready granted (kept): ${already.join(', ')}` : '';
      return {
        kind: 'app_grant',
        description: `Let Deskhand use ${args.app} (${caps.join(', ')})`,
        prompt: `Deskhand asks to use the app "${args.app}" ${args.minutes ? `for ${args.minutes} minutes` : 'until you revoke it'}:\n${how}${kept}${args.reason ? `\nWhy: ${args.reason}` : ''}`,
        data,
      };
    },
    async execute(args, ctx) {
      const a = ctx.answer as { app: string; capabilities: Capability[]; granted?: Capability[]; expiresAt: number | null } | undefined;
      const asked = args.capabilities ? CAPABILITIES.filter((c) => args.capabilities!.includes(c)) : [...CAPABILITIES];
      if (!a) {
        const held = computer.grants.get(args.app);
        if (held && asked.every((c) => held.capabilities.includes(c))) {
          return { output: `"${held.app}" already holds ${held.capabilities.join(', ')} (${describeGrant(held).slice(held.app.length + 2)}); nothing was asked.` };
        }
        throw new ToolError('The grant was not answered.');
      }
      const granted = a.granted ?? a.capabilities;
      const narrowed = asked.some((c) => !a.capabilities.includes(c)) ? ' (less than asked: act only within it)' : '';
      const now = a.capabilities.length > granted.length ? ` "${a.app}" now holds ${a.capabilities.join(', ')}.` : '';
      return { output: `The person granted "${a.app}": ${granted.join(', ')}${a.expiresAt ? ` until ${new Date(a.expiresAt).toISOString()}` : ' until revoked'}${narrowed}.${now}` };
    },
  });
}
