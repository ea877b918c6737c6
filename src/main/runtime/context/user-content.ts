/**
 * A user message as the model gets it: the typed text, then each attachment as a part — images as file parts with
 * their media type (the provider sends them as image input), text files as text parts naming the file. Attachment
 * parts carry `providerOptions.deskhand.attachment` (providers ignore keys not their own) so the transcript shows them
 * as chips, not as typed text. Everything is checked here, whatever the UI checked: kinds, sizes, UTF-8.
 */
import { DeskhandError } from '../../../shared/errors';
import { ATTACHMENT_KEY, attachedTextPart, attachmentKind, attachmentSizeProblem } from '../../../shared/attachments';

export interface Attachment {
  name: string;
  mediaType: string;
  /** The file's bytes, base64. */
  data: string;
}

export interface AttachmentMeta {
  attachment: string;
  kind: 'image' | 'text';
  bytes: number;
}

type Part =
  | { type: 'text'; text: string; providerOptions?: Record<string, AttachmentMeta> }
  | { type: 'file'; data: string; mediaType: string; filename: string; providerOptions: Record<string, AttachmentMeta> };

/** The stored content of a user message: the plain string when nothing is attached (as before), else parts. */
export function userContent(prompt: string, attachments: readonly Attachment[] | undefined, redact: (text: string) => string): string | Part[] {
  if (!attachments?.length) return redact(prompt);
  const decoded = attachments.map((a) => {
    const name = cleanName(a.name);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.data)) throw new DeskhandError('usage', `${name}: the attachment is not base64 data.`);
    return { ...a, name, bytes: Buffer.from(a.data, 'base64') };
  });
  const problem = attachmentSizeProblem(decoded.map((d) => ({ name: d.name, bytes: d.bytes.length })));
  if (problem) throw new DeskhandError('usage', problem);
  const parts: Part[] = [];
  if (prompt.trim()) parts.push({ type: 'text', text: redact(prompt) });
  for (const d of decoded) {
    const kind = attachmentKind(d.name, d.mediaType);
    if (typeof kind !== 'string') throw new DeskhandError('usage', kind.error);
    const meta: AttachmentMeta = { attachment: d.name, kind, bytes: d.bytes.length };
    if (kind === 'image') {
      if (!looksLikeImage(d.bytes, d.mediaType)) throw new DeskhandError('usage', `${d.name}: the file is not a ${d.mediaType} image.`);
      parts.push({ type: 'file', data: d.bytes.toString('base64'), mediaType: d.mediaType, filename: d.name, providerOptions: { [ATTACHMENT_KEY]: meta } });
    } else {
      const text = new TextDecoder('utf-8', { fatal: false }).decode(d.bytes);
      if (text.includes('\u0000') || text.includes('\uFFFD')) throw new DeskhandError('usage', `${d.name}: the file is not UTF-8 text; only text files and images can be attached.`);
      // A file can hold credentials like anything typed: the same redactor applies.
      parts.push({ type: 'text', text: attachedTextPart(d.name, redact(text)), providerOptions: { [ATTACHMENT_KEY]: meta } });
    }
  }
  if (parts.length === 0) throw new DeskhandError('usage', 'The message is empty.');
  return parts;
}

/** The attachment metadata of a stored part, or null for typed text. */
export function attachmentOf(part: unknown): AttachmentMeta | null {
  if (!part || typeof part !== 'object') return null;
  const meta = (part as { providerOptions?: Record<string, unknown> }).providerOptions?.[ATTACHMENT_KEY] as AttachmentMeta | undefined;
  return meta && typeof meta.attachment === 'string' ? meta : null;
}

function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200).trim();
  return clean || 'attachment';
}

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

function looksLikeImage(bytes: Buffer, mediaType: string): boolean {
  return MAGIC[mediaType]?.(bytes) ?? false;
}
