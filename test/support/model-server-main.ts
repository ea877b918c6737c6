/**
 * The scripted model server as its own process, for end-to-end tests of the real `deskhand` CLI:
 *   node --import tsx test/support/model-server-main.ts --script script.json [--requests requests.jsonl] [--api-key KEY]
 *     [--models a,b]   (GET /v1/models lists them: the server stands in for a local model server that is detected)
 *     [--routes routes.json]   ({"KEY": [replies…]}: a request whose first user message contains KEY takes the next reply
 *                              of that queue, every other request the script's next; subagents run beside their parent)
 *     [--accept-invalid-because REASON]   (the provider-validity checks are off: the test sends broken bodies on purpose)
 *     [--expect-refusals REASON]   (the test sends invalid requests on purpose and expects them refused)
 * Prints `{"url": "..."}` on one stdout line once listening; appends each recorded request as a JSON line to --requests
 * (the audio routes' too: `{"protocol": "audio", path, body: the form fields or JSON body, files: [{field, filename,
 * contentType, size, sha256}]}`).
 * A request the checks refuse is answered as the provider would, and (unless --expect-refusals) makes the process exit
 * with code 3 when it is stopped (SIGTERM/SIGINT), after printing each refusal on stderr: the test that started it fails
 * (e2e/support.ts).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { firstUserText, scriptedReplySchema, startModelServer } from './model-server';

const { values } = parseArgs({
  options: { script: { type: 'string' }, requests: { type: 'string' }, 'api-key': { type: 'string' }, models: { type: 'string' }, routes: { type: 'string' }, 'accept-invalid-because': { type: 'string' }, 'expect-refusals': { type: 'string' } },
});
if (!values.script) throw new Error('model-server-main: --script FILE is required');
const requestsFile = values.requests;

const script = z.array(scriptedReplySchema).parse(JSON.parse(readFileSync(values.script, 'utf8')));
const server = await startModelServer({
  apiKey: values['api-key'],
  acceptInvalidRequestsBecause: values['accept-invalid-because'],
  expectRefusals: values['expect-refusals'],
  models: values.models ? values.models.split(',').filter(Boolean) : undefined,
  // Appended synchronously, so the file is complete by the time the client has its answer.
  onRequest: requestsFile ? (request) => appendFileSync(requestsFile, `${JSON.stringify(request)}\n`) : undefined,
  onAudioRequest: requestsFile
    ? (r) => {
        const files = r.files.map(({ field, filename, contentType, size, sha256 }) => ({ field, filename, contentType, size, sha256 }));
        appendFileSync(requestsFile, `${JSON.stringify({ protocol: 'audio', path: r.path, headers: r.headers, body: r.fields, files })}\n`);
      }
    : undefined,
});
if (values.routes) {
  const routes = z.record(z.string(), z.array(scriptedReplySchema)).parse(JSON.parse(readFileSync(values.routes, 'utf8')));
  server.setFallback((req) => {
    const first = firstUserText(req.body);
    for (const [key, queue] of Object.entries(routes)) if (first.includes(key)) return queue.shift() ?? { status: 500, message: `no reply left for ${key}` };
    return script.shift() ?? { status: 500, message: 'no scripted reply left' };
  });
} else server.enqueue(...script);
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

/** Exit code of a server that refused requests no test expected. */
const REFUSED_EXIT = 3;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () =>
    void server.close().then(() => {
      if (server.refused.length === 0 || values['expect-refusals'] !== undefined) process.exit(0);
      process.stderr.write(`model server: ${server.refused.length} request(s) were refused as the provider would refuse them:\n${server.refused.map((r) => `  - ${r.path}: ${r.refusal.message}\n`).join('')}`);
      process.exit(REFUSED_EXIT);
    }),
  );
}
