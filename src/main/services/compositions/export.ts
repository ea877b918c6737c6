/**
 * One composition version as files to hand over: the files it publishes as (the page, or the image), and their zip.
 * `deskhand compositions export` and the viewer's "Export zip" both use these, so they write the same bytes.
 */
import { publishedFileName, type CompositionDetail, type PublishFile } from './index';
import { zipFiles } from './publish';

export function versionFiles(c: Pick<CompositionDetail, 'kind' | 'versions' | 'id'>, version: number, bytes: Uint8Array): PublishFile[] {
  const v = c.versions.find((x) => x.version === version);
  if (!v) throw new Error(`Composition ${c.id} has no version ${version}.`);
  return [{ name: publishedFileName(c.kind, v.mime), bytes }];
}

export const versionZip = (c: Pick<CompositionDetail, 'kind' | 'versions' | 'id'>, version: number, bytes: Uint8Array): Uint8Array => zipFiles(versionFiles(c, version, bytes));
