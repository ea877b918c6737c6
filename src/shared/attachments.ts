/**
 * Files and images a person attaches to a message: what may be attached (kinds and size caps, checked in the UI for a
 * quick answer and again in main, which decides), and how an attachment is recognised in a stored user message. Pure.
 */

/** Attachments per message. */
export const MAX_ATTACHMENTS = 6;
/**
 * Bytes of one attachment, and of all of a message's attachments together. A UI request is at most 1,000,000 bytes
 * (MAX_PAYLOAD_BYTES) and files travel base64-encoded (4/3 larger), so together they stay under 700 KB.
 */
export const MAX_ATTACHMENT_BYTES = 700 * 1024;
export const MAX_TOTAL_ATTACHMENT_BYTES = 700 * 1024;

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** File name endings read as text when the browser gives no text/* type. */
const TEXT_ENDINGS = /\.(txt|md|markdown|csv|tsv|json|jsonl|ya?ml|toml|ini|cfg|conf|log|xml|html?|css|scss|js|mjs|cjs|jsx|ts|tsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|sql|r|swift|lua|pl|env\.example|gitignore|dockerfile)$/i;

export type AttachmentKind = 'image' | 'text';

/** The kind a file is attached as, or an error in words a person can act on. */
export function attachmentKind(name: string, mediaType: string): AttachmentKind | { error: string } {
  if ((IMAGE_TYPES as readonly string[]).includes(mediaType)) return 'image';
  if (mediaType.startsWith('image/')) return { error: `${name}: ${mediaType} images cannot be attached; use PNG, JPEG, GIF or WebP.` };
  if (mediaType.startsWith('text/') || /^application\/(json|xml|x-yaml|yaml|toml|javascript|x-sh|sql)$/.test(mediaType) || TEXT_ENDINGS.test(name)) return 'text';
  return { error: `${name}: only images (PNG, JPEG, GIF, WebP) and text files can be attached${mediaType ? `, not ${mediaType}` : ''}.` };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The size checks of one message's attachments: null when they fit, else what to change. */
export function attachmentSizeProblem(files: readonly { name: string; bytes: number }[]): string | null {
  if (files.length > MAX_ATTACHMENTS) return `At most ${MAX_ATTACHMENTS} attachments per message (${files.length} given).`;
  for (const f of files) {
    if (f.bytes > MAX_ATTACHMENT_BYTES) return `${f.name} is ${formatBytes(f.bytes)}; an attachment may be at most ${formatBytes(MAX_ATTACHMENT_BYTES)}.`;
    if (f.bytes === 0) return `${f.name} is empty.`;
  }
  const total = files.reduce((s, f) => s + f.bytes, 0);
  if (total > MAX_TOTAL_ATTACHMENT_BYTES) return `The attachments add up to ${formatBytes(total)}; together they may be at most ${formatBytes(MAX_TOTAL_ATTACHMENT_BYTES)}.`;
  return null;
}

/**
 * Text longer than this (characters, or lines) goes as a "pasted text" attachment instead of the message itself: the
 * model gets it whole as a file, and the transcript shows a chip instead of a wall of text.
 */
export const PASTE_AS_FILE_CHARS = 5000;
export const PASTE_AS_FILE_LINES = 60;

export function isLongText(text: string): boolean {
  if (text.length > PASTE_AS_FILE_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (++lines > PASTE_AS_FILE_LINES) return true;
  return false;
}

/** Why a long text cannot go with the message, with the way forward; null when it fits (the attachment cap, once). */
export function pastedTextProblem(bytes: number): string | null {
  if (bytes <= MAX_ATTACHMENT_BYTES) return null;
  return (
    `This text is ${formatBytes(bytes)}; a message can carry at most ${formatBytes(MAX_ATTACHMENT_BYTES)} of pasted text and files. ` +
    'Save it as a file in the conversation\'s folder and ask Deskhand to read it: it reads files of any size, part by part.'
  );
}

/** The provider-options key that marks a stored part as an attachment (providers ignore keys not their own). */
export const ATTACHMENT_KEY = 'deskhand';

/** How a text file reaches the model: its name, then its text, inside a fence the file cannot close. */
export function attachedTextPart(name: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `Attached file ${name}:\n${fence}\n${text}\n${fence}`;
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === ch ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}
