import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { readOffloaded } from '../../runtime/loop/offload';
import type { Compactor } from './summarize-context';

const DEFAULT_PAGE = 20_000;
const MAX_PAGE = 100_000;

/** A compaction's dropped message: `msg_` and its number (the compacted context names them). */
const DROPPED_ID = /^msg_(\d{1,15})$/;

export const createRetrieveToolResult = (dataDir: string, dropped: Compactor['dropped'] | null = null) =>
  defineTool({
    name: 'retrieve_tool_result',
    description:
      'Read a tool result that was too long for the context (it was stored in full and you got its head, its tail and an id res_…), or a message compaction dropped (msg_N). Returns a page from offset (characters, default 0) of length characters (default 20000, at most 100000) and the offset of the next page.',
    params: () => z
      .object({
        id: z.string().trim().min(1).max(40).describe('The id named in the cut result (res_…) or the compacted context (msg_N).'),
        offset: z.number().int().min(0).optional().describe('Character offset to start from (default 0).'),
        length: z.number().int().min(1).max(MAX_PAGE).optional().describe('Characters to read (default 20000, at most 100000).'),
      })
      .strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { loadsWith: 'results', reaches: ['conversations'] },
    offload: false,
    presentation: { title: 'Read a stored tool result', icon: 'file', summary: (a) => `${a.id} @${a.offset ?? 0}` },
    async execute(args, ctx) {
      const offset = args.offset ?? 0;
      const msg = DROPPED_ID.exec(args.id);
      if (msg && dropped) {
        const m = dropped(ctx.conversationId, Number(msg[1]));
        if (!m) throw new ToolError(`${args.id} is not a message a compaction dropped from this conversation (the messages after the summary are in your context already).`);
        const length = args.length ?? DEFAULT_PAGE;
        const text = m.text.slice(offset, offset + length);
        const end = offset + text.length;
        const next = end >= m.text.length ? 'This is the end of the message.' : `Next page: retrieve_tool_result {"id":"${args.id}","offset":${end}}.`;
        const output = `[${args.id} (dropped by compaction): characters ${offset}–${end} of ${m.text.length}. ${next}]\n${text}`;
        return m.untrusted ? { output, untrustedSource: `dropped message ${args.id}` } : { output };
      }
      const page = readOffloaded(dataDir, ctx.conversationId, args.id, offset, args.length ?? DEFAULT_PAGE);
      const next = page.nextOffset === null ? 'This is the end of the result.' : `Next page: retrieve_tool_result {"id":"${args.id}","offset":${page.nextOffset}}.`;
      const output = `[${args.id} (${page.meta.tool}): characters ${offset}–${offset + page.text.length} of ${page.meta.chars}. ${next}]\n${page.text}`;
      return page.meta.untrusted ? { output, untrustedSource: page.meta.untrusted } : { output };
    },
  });
