/**
 * Large tool results leave the context but never the store: the full text goes to
 * `<dataDir>/tool-results/<conversation>/<id>.txt` and the model reads a head, a tail and the id, then pages through
 * the rest with `retrieve_tool_result`. The text is already redacted (and marked untrusted when it came from outside).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../../../shared/errors';

export interface OffloadMeta {
  id: string;
  tool: string;
  chars: number;
  /** The untrusted source of the result (pages are wrapped again when read), or null. */
  untrusted: string | null;
  createdAt: number;
}

const ID_RE = /^res_[0-9a-f]{12}$/;

function folder(dataDir: string, conversationId: string): string {
  return join(dataDir, 'tool-results', conversationId.replace(/[^A-Za-z0-9_-]/g, '_'));
}

/** Stores `output` in full; returns what the model gets instead (head, a notice with the id, tail). */
export function offloadResult(dataDir: string, conversationId: string, tool: string, output: string, limit: number, untrusted: string | null): string {
  const id = `res_${randomBytes(6).toString('hex')}`;
  const dir = folder(dataDir, conversationId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${id}.txt`), output, { mode: 0o600 });
  const meta: OffloadMeta = { id, tool, chars: output.length, untrusted, createdAt: Date.now() };
  writeFileSync(join(dir, `${id}.json`), JSON.stringify(meta), { mode: 0o600 });
  const headChars = Math.max(1000, Math.floor(limit * 0.2));
  const tailChars = Math.max(500, Math.floor(limit * 0.1));
  const head = output.slice(0, headChars);
  const tail = output.slice(output.length - tailChars);
  const omitted = output.length - head.length - tail.length;
  return (
    `${head}\n\n[… ${omitted} characters offloaded from the context. This result (${id}, ${output.length} characters in all) is stored in full: ` +
    `retrieve_tool_result {"id":"${id}","offset":${head.length}} reads it a page at a time. The last ${tail.length} characters follow.]\n\n${tail}`
  );
}

/** A page of an offloaded result of this conversation. */
export function readOffloaded(dataDir: string, conversationId: string, id: string, offset: number, length: number): { meta: OffloadMeta; text: string; nextOffset: number | null } {
  if (!ID_RE.test(id)) throw new ToolError(`"${id.slice(0, 40)}" is not a stored result id; ids look like res_0123456789ab and appear in a cut tool result.`, 'invalid_args');
  const dir = folder(dataDir, conversationId);
  const metaPath = join(dir, `${id}.json`);
  if (!existsSync(metaPath)) throw new ToolError(`No stored result ${id} in this conversation. Only results cut in this conversation can be read.`, 'not_found');
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as OffloadMeta;
  if (offset > meta.chars) throw new ToolError(`offset ${offset} is past the end of ${id} (${meta.chars} characters).`, 'invalid_args');
  const text = readFileSync(join(dir, `${id}.txt`), 'utf8').slice(offset, offset + length);
  const end = offset + text.length;
  return { meta, text, nextOffset: end < meta.chars ? end : null };
}
