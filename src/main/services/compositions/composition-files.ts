/**
 * The compositions service over the store module and the data dir: each version's bytes in
 * `<dataDir>/compositions/<id>/v<n>.<ext>` (written to a temp name, then renamed), its sha256 in the row. A read that
 * does not match the recorded hash fails: what the person approved is what gets published, or nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { compositionsModule } from '../store/modules/compositions';
import {
  EXTENSIONS,
  MAX_COMPOSITION_BYTES,
  imageMime,
  toComment,
  toSummary,
  toVersion,
  type CompositionDetail,
  type CompositionService,
  type CompositionSummary,
  type NewComposition,
} from './index';

const ID = /^cmp_[0-9a-f]{10}$/;

export class CompositionFiles implements CompositionService {
  private readonly q: ReturnType<typeof compositionsModule.queries>;
  private readonly root: string;

  constructor(
    store: Pick<Store, 'module'>,
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.q = store.module(compositionsModule);
    this.root = join(dataDir, 'compositions');
  }

  create(input: NewComposition): ReturnType<CompositionService['create']> {
    if (input.bytes.length === 0) throw new DeskhandError('usage', 'The composition is empty.');
    if (input.bytes.length > MAX_COMPOSITION_BYTES) {
      throw new DeskhandError('usage', `The composition is ${input.bytes.length} bytes; the limit is ${MAX_COMPOSITION_BYTES}.`);
    }
    const mime = mimeOf(input.kind, input.bytes);
    const at = this.now();
    let id: string;
    let revises: number | null = null;
    if (input.revises) {
      const prev = this.q.get(input.revises);
      if (!prev) throw new DeskhandError('not_found', `No composition ${input.revises}. Use compositions' ids as create_composition returned them.`);
      if (prev.kind !== input.kind) {
        throw new DeskhandError('usage', `Composition ${prev.id} is ${prev.kind}; a revision must be ${prev.kind} too (make a new composition for a ${input.kind}).`);
      }
      id = prev.id;
      revises = this.q.latestVersion(id);
    } else {
      id = `cmp_${randomBytes(5).toString('hex')}`;
      this.q.insert({ id, conversation_id: input.conversationId, title: input.title, kind: input.kind, created_at: at, updated_at: at, approved_version: null });
    }
    const version = (revises ?? 0) + 1;
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true });
    const file = `v${version}.${EXTENSIONS[mime] ?? 'bin'}`;
    const tmp = join(dir, `.${file}.${process.pid}.tmp`);
    writeFileSync(tmp, input.bytes, { mode: 0o600 });
    renameSync(tmp, join(dir, file));
    const row = { composition_id: id, version, revises, file, mime, bytes: input.bytes.length, sha256: sha256(input.bytes), review: 'pending' as const, created_at: at };
    this.q.addVersion(row, input.title);
    return { detail: this.get(id)!, version: toVersion(row) };
  }

  get(id: string): CompositionDetail | null {
    if (!ID.test(id)) return null;
    const row = this.q.get(id);
    if (!row) return null;
    const versions = this.q.versions(id).map(toVersion);
    return { ...toSummary(row, versions.at(-1)?.version ?? 0), versions, comments: this.q.comments(id).map(toComment) };
  }

  list(opts: { conversationId?: string | null; limit?: number } = {}): CompositionSummary[] {
    return this.q.list(opts.conversationId ?? null, opts.limit ?? 200).map((r) => toSummary(r, this.q.latestVersion(r.id)));
  }

  read(id: string, version: number): Buffer {
    const v = ID.test(id) ? this.q.version(id, version) : undefined;
    if (!v) throw new DeskhandError('not_found', `Composition ${id} has no version ${version}.`);
    const bytes = readFileSync(join(this.root, id, v.file));
    if (sha256(bytes) !== v.sha256) {
      throw new DeskhandError('conflict', `Composition ${id} version ${version} changed on disk since it was made (its sha256 differs); it is not shown or published.`);
    }
    return bytes;
  }

  review(id: string, version: number, kind: 'comment' | 'approve' | 'changes', text: string): CompositionDetail {
    if (!this.get(id)) throw new DeskhandError('not_found', `No composition ${id}.`);
    if (!this.q.version(id, version)) throw new DeskhandError('not_found', `Composition ${id} has no version ${version}.`);
    this.q.review(id, version, kind, text, this.now());
    return this.get(id)!;
  }
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function mimeOf(kind: NewComposition['kind'], bytes: Buffer): string {
  if (kind === 'html') return 'text/html';
  if (kind === 'markdown') return 'text/markdown';
  if (kind === 'svg') {
    if (!/<svg[\s>]/i.test(bytes.subarray(0, 4096).toString('utf8'))) throw new DeskhandError('usage', 'An svg composition must be an SVG document (it has no <svg> element near its start).');
    return 'image/svg+xml';
  }
  const mime = imageMime(bytes);
  if (!mime) throw new DeskhandError('usage', 'An image composition must be PNG, JPEG, GIF or WebP (for SVG use kind "svg").');
  return mime;
}
