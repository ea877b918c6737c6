/** Tools every agent of a Tower session has: messages, findings, review verdicts, its mission, the dashboard. */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { Tower } from '../../services/tower/index';

const missionId = z.string().regex(/^[a-z][a-z0-9-]{0,30}$/, { error: 'a mission id is lowercase letters, digits and dashes, e.g. api' });

export const createTowerSend = (tower: Tower) =>
  defineTool({
    name: 'tower_send',
    description: 'Send an inbox message to a roster agent (e.g. worker-api), to tower, or to all. A running agent reads a message from the tower before its next step.',
    params: () => z.object({ to: z.string().trim().min(1).max(80).describe('tower, all, or an agent name from tower_status.'), message: z.string().trim().min(1).max(20_000).describe('The message.') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [], roles: ['tower-member'] },
    presentation: { title: 'Send a Tower message', icon: 'tool', summary: (a) => `to ${a.to}` },
    async execute(args, ctx) {
      return { output: tower.send(ctx.conversationId, args.to, args.message) };
    },
  });

export const createTowerInbox = (tower: Tower) =>
  defineTool({
    name: 'tower_inbox',
    description: 'Read your inbox: messages addressed to you plus broadcasts, newest first.',
    params: () => z.object({ limit: z.number().int().min(1).max(100).optional().describe('At most this many (default 20).') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [], roles: ['tower-member'] },
    presentation: { title: 'Read the Tower inbox', icon: 'tool' },
    async execute(args, ctx) {
      return { output: tower.inbox(ctx.conversationId, args.limit ?? 20) };
    },
  });

export const createTowerFinding = (tower: Tower) =>
  defineTool({
    name: 'tower_finding',
    description: 'File a structured finding (bug, improve, vuln, idea) about something outside your mission\'s scope, for the tower.',
    params: () => z
      .object({
        kind: z.enum(['bug', 'improve', 'vuln', 'idea']).describe('What sort of finding.'),
        title: z.string().trim().min(1).max(200).describe('One line.'),
        body: z.string().trim().max(20_000).default('').describe('Details: where, why, a suggested fix.'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [], roles: ['tower-member'] },
    presentation: { title: 'File a Tower finding', icon: 'tool', summary: (a) => `${a.kind}: ${a.title}` },
    async execute(args, ctx) {
      return { output: tower.finding(ctx.conversationId, args.kind, args.title, args.body) };
    },
  });

export const createTowerReview = (tower: Tower) =>
  defineTool({
    name: 'tower_review',
    description: 'Submit your verdict on the mission branch you were assigned to review: approve, or changes (say what must change). Recorded against the branch\'s current tip.',
    params: () => z.object({ mission: missionId.describe('The mission you review.'), verdict: z.enum(['approve', 'changes']).describe('approve or changes.'), body: z.string().trim().max(20_000).default('').describe('Your review.') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [], roles: ['tower-member'] },
    presentation: { title: 'Submit a review verdict', icon: 'tool', summary: (a) => `${a.verdict} ${a.mission}` },
    async execute(args, ctx) {
      return { output: await tower.review(ctx.conversationId, args.mission, args.verdict, args.body) };
    },
  });

export const createTowerMission = (tower: Tower) =>
  defineTool({
    name: 'tower_mission',
    description: 'Read a mission, or patch the one you own: tick tasks (numbers from 1), log a note, raise a blocker (it also goes to the tower\'s inbox).',
    params: () => z
      .object({
        mission: missionId.optional().describe('The mission (default: yours).'),
        done: z.array(z.number().int().min(1)).max(30).optional().describe('Task numbers to tick.'),
        note: z.string().trim().max(4000).optional().describe('A note for the log.'),
        blocker: z.string().trim().max(4000).optional().describe('What blocks you.'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [], roles: ['tower-member'] },
    presentation: { title: 'Read or update a mission', icon: 'tool', summary: (a) => a.mission ?? 'my mission' },
    async execute(args, ctx) {
      return { output: tower.mission(ctx.conversationId, args.mission, { ...(args.done ? { done: args.done } : {}), ...(args.note ? { note: args.note } : {}), ...(args.blocker ? { blocker: args.blocker } : {}) }) };
    },
  });

export const createTowerStatus = (tower: Tower) =>
  defineTool({
    name: 'tower_status',
    // Asked again while waiting for something to change: the repeat guard leaves it alone.
    repeats: 'expected',
    description: 'Show the Tower dashboard: missions, roster, review gate, inbox count and recent activity.',
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [], roles: ['tower-member'] },
    presentation: { title: 'Tower status', icon: 'tool' },
    async execute(_args, ctx) {
      return { output: tower.status(ctx.conversationId) };
    },
  });
