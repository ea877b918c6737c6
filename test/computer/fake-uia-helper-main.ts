/**
 * Stands in for the PowerShell UI Automation helper (which runs only on Windows), speaking its line protocol:
 *   node --import tsx test/computer/fake-uia-helper-main.ts REPLIES.json LOG.jsonl
 * Reads one JSON request per stdin line, appends it to LOG, and prints the recorded reply for `cmd` (or `cmd path`,
 * or `cmd app`) as the helper prints it: `{"id":…,"ok":true,"result":…}` or `{"id":…,"ok":false,"error":…}`. A reply
 * `{"exit": N, "stderr": "…"}` makes it write that to stderr and exit, as a helper that dies would.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [repliesFile, logFile] = process.argv.slice(2) as [string, string];
const replies = JSON.parse(readFileSync(repliesFile, 'utf8')) as Record<string, { result?: unknown; error?: string; exit?: number; stderr?: string }>;
// PowerShell prints a banner line now and then (warnings, progress); the client must skip what is not a reply.
process.stdout.write('WARNING: stray output before the first reply\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  appendFileSync(logFile, `${line}\n`);
  const req = JSON.parse(line) as { id: number; cmd: string; args: { path?: string; app?: string } };
  const reply = replies[`${req.cmd} ${req.args.path ?? req.args.app ?? ''}`] ?? replies[req.cmd];
  if (!reply) process.stdout.write(`${JSON.stringify({ id: req.id, ok: false, error: `unknown command ${req.cmd}` })}\n`);
  else if (reply.exit !== undefined) {
    process.stderr.write(`${reply.stderr ?? ''}\n`);
    process.exit(reply.exit);
  } else if (reply.error !== undefined) process.stdout.write(`${JSON.stringify({ id: req.id, ok: false, error: reply.error })}\n`);
  else process.stdout.write(`${JSON.stringify({ id: req.id, ok: true, result: reply.result ?? null })}\n`);
}
