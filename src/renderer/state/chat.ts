/**
 * The composer's chat state: the message being edited (edit and resend replaces the turn from it on) and the files
 * attached to the next message, read in the browser and checked against the same caps main applies.
 */
import { create } from 'zustand';
import { attachmentKind, attachmentSizeProblem, pastedTextProblem } from '../../shared/attachments';

export interface PendingAttachment {
  id: string;
  name: string;
  mediaType: string;
  bytes: number;
  kind: 'image' | 'text';
  /** base64 of the bytes. */
  data: string;
}

interface ChatState {
  editing: { messageId: string; text: string } | null;
  attachments: PendingAttachment[];
  /** Why the last files could not be attached, in words. */
  problem: string | null;
  startEdit(messageId: string, text: string): void;
  cancelEdit(): void;
  addFiles(files: readonly File[]): Promise<void>;
  /** A long text (pasted, or typed past the limit) as a "pasted text" attachment. False when it is too big (problem set). */
  addText(text: string): boolean;
  remove(id: string): void;
  clear(): void;
}

let seq = 0;

function base64(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(out);
}

export const useChat = create<ChatState>((set, get) => ({
  editing: null,
  attachments: [],
  problem: null,
  startEdit: (messageId, text) => set({ editing: { messageId, text } }),
  cancelEdit: () => set({ editing: null }),
  async addFiles(files) {
    const added: PendingAttachment[] = [];
    for (const f of files) {
      const name = f.name || `pasted-${++seq}.${f.type.split('/')[1] ?? 'bin'}`;
      const kind = attachmentKind(name, f.type);
      if (typeof kind !== 'string') return set({ problem: kind.error });
      added.push({ id: `att${++seq}`, name, mediaType: f.type || 'text/plain', bytes: f.size, kind, data: base64(await f.arrayBuffer()) });
    }
    const all = [...get().attachments, ...added];
    const problem = attachmentSizeProblem(all);
    if (problem) return set({ problem });
    set({ attachments: all, problem: null });
  },
  addText(text) {
    const bytes = new TextEncoder().encode(text);
    const tooBig = pastedTextProblem(bytes.length);
    if (tooBig) {
      set({ problem: tooBig });
      return false;
    }
    const n = get().attachments.filter((a) => a.name.startsWith('pasted-text-')).length + 1;
    const added: PendingAttachment = { id: `att${++seq}`, name: `pasted-text-${n}.txt`, mediaType: 'text/plain', bytes: bytes.length, kind: 'text', data: base64(bytes.buffer as ArrayBuffer) };
    const all = [...get().attachments, added];
    const problem = attachmentSizeProblem(all);
    if (problem) {
      set({ problem });
      return false;
    }
    set({ attachments: all, problem: null });
    return true;
  },
  remove: (id) => set((s) => ({ attachments: s.attachments.filter((a) => a.id !== id), problem: null })),
  clear: () => set({ attachments: [], problem: null }),
}));
