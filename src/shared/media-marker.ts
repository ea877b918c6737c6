/**
 * How read_media_file hands an image to the model: its text result ends with a marker naming a downscaled copy in the
 * data dir (`media/<sha256>.png|jpg`); when the step's tool results are written, the runtime turns that marker into an
 * image part for providers that can take images (Anthropic in the tool result; OpenAI in a user message after it, placed
 * by runtime/context/prompt-images.ts; OpenAI-compatible servers get a note instead). Only read_media_file's own
 * successful results are looked at, and only files whose content hashes to their name.
 */
export const MEDIA_TOOL = 'read_media_file';
export const IMAGE_MARKER = /^\[image attached: media\/([0-9a-f]{64})\.(png|jpg)\]$/m;
export const PROVIDERS_WITH_IMAGE_RESULTS: readonly string[] = ['anthropic', 'openai'];
export const imageMarker = (sha256: string, ext: 'png' | 'jpg'): string => `[image attached: media/${sha256}.${ext}]`;
