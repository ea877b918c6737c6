/**
 * The media family: read_media_file (images, a region or full resolution; videos as metadata and sampled frames;
 * audio described), who_is_here, and the companion model's analyze_media and generate_media.
 */
import type { ToolDefinition } from '../../runtime/tool';
import type { AvTools, Companion, MediaService } from '../../services/media/index';
import { createReadMediaFile } from './read-media-file';
import { createAnalyzeMedia, createGenerateMedia } from './companion-tools';
import type { ToolContext } from '../../runtime/tool';
import type { PresenceService } from '../../services/presence/index';
import { createWhoIsHere } from './who-is-here';

export interface MediaDeps {
  media: MediaService;
  /** ffprobe/ffmpeg for audio and video (absent: they are described by their container only). */
  av?: AvTools;
  presence?: PresenceService;
  /** The companion model (analyze_media, generate_media), with the data dir its prepared images live in. */
  companion?: { model: Companion; dataDir: string; write: (abs: string, bytes: Uint8Array, ctx: ToolContext) => Promise<void> };
}

/** read_media_file; who_is_here when the host gives presence; analyze_media and generate_media with a companion. */
export function createMediaFamily(deps: MediaDeps): { tools: ToolDefinition[] } {
  const c = deps.companion;
  return {
    tools: [
      createReadMediaFile(deps.media, deps.av ?? null),
      ...(deps.presence ? [createWhoIsHere(deps.presence)] : []),
      ...(c ? [createAnalyzeMedia(c.model, deps.media, c.dataDir, deps.av ?? null), createGenerateMedia(c.model, deps.media, c.write)] : []),
    ] as unknown as ToolDefinition[],
  };
}
