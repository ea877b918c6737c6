/**
 * The scripted model server (test/support/model-server.ts, the same code) in a process of its own, for the benches
 * (bench/model-server-process.ts starts it: `node --import tsx bench/model-server-child.ts`).
 * Prints `{"url": "..."}` on one stdout line once listening; then reads one JSON command a line on stdin and answers
 * each with one line `{"id": N, ...}` (or `{"id": N, "error": "..."}`):
 *   {"id", "op": "enqueue", "replies": [ScriptedReply…]}          the next replies, in order
 *   {"id", "op": "routes", "routes": {routes: [{contains, reply}], otherwise?}}   replies chosen by the first user message
 *   {"id", "op": "enqueueUnrouted", "replies": [...]}             for requests no route matches, before `otherwise`
 *   {"id", "op": "take", "bodies": bool}   → {"requests": [{at, body?}]}: the requests answered since the last take
 *                                            (`at`: wall-clock ms when each reached the server), then forgotten
 *   {"id", "op": "close"}                                          closes the server, answers, exits
 * Ends by itself when its stdin closes (the bench's process is gone).
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { scriptedReplySchema, startModelServer } from '../test/support/model-server';
import { now, routedFallback } from './model-server-process';

const taken: { at: number; body: unknown }[] = [];
const server = await startModelServer({ onRequest: (r) => taken.push({ at: now(), body: r.body }) });
const routing = routedFallback();

const command = z.discriminatedUnion('op', [
  z.object({ id: z.number(), op: z.literal('enqueue'), replies: z.array(scriptedReplySchema) }),
  z.object({ id: z.number(), op: z.literal('enqueueUnrouted'), replies: z.array(scriptedReplySchema) }),
  z.object({
    id: z.number(),
    op: z.literal('routes'),
    routes: z.object({ routes: z.array(z.object({ contains: z.string(), reply: scriptedReplySchema })), otherwise: scriptedReplySchema.optional() }),
  }),
  z.object({ id: z.number(), op: z.literal('take'), bodies: z.boolean() }),
  z.object({ id: z.number(), op: z.literal('close') }),
]);

const answer = (msg: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(msg)}\n`);

createInterface({ input: process.stdin })
  .on('line', (line) => {
    let id: unknown;
    try {
      id = (JSON.parse(line) as { id?: unknown }).id;
      const cmd = command.parse(JSON.parse(line));
      switch (cmd.op) {
        case 'enqueue':
          server.enqueue(...cmd.replies);
          return answer({ id: cmd.id });
        case 'enqueueUnrouted':
          routing.push(cmd.replies);
          return answer({ id: cmd.id });
        case 'routes':
          routing.set(cmd.routes);
          server.setFallback((req) => routing.pick(req.body));
          return answer({ id: cmd.id });
        case 'take': {
          const requests = taken.splice(0).map((t) => (cmd.bodies ? { at: t.at, body: JSON.stringify(t.body) } : { at: t.at }));
          server.requests.length = 0;
          return answer({ id: cmd.id, requests });
        }
        case 'close':
          return void server.close().then(() => {
            answer({ id: cmd.id });
            process.exit(0);
          });
      }
    } catch (error) {
      answer({ id, error: error instanceof Error ? error.message : String(error) });
    }
  })
  .on('close', () => void server.close().finally(() => process.exit(0)));

process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
