/**
 * `deskhand media companion set --provider P --model M [--image-model I] [--transcription-model T] [--speech-model S]
 * [--also-model M2]… [--also-image-model I2]… [--also-speech-model S2]… [--base-url URL] | show | clear`.
 */
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { CompanionModel } from '../../services/media/companion';
import { resolveDataDir } from '../assembly/data-dir';

export async function mediaCommand(args: string[]): Promise<number> {
  const [what, sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { 'data-dir': { type: 'string' }, provider: { type: 'string' }, model: { type: 'string' }, 'image-model': { type: 'string' }, 'transcription-model': { type: 'string' }, 'speech-model': { type: 'string' }, 'also-model': { type: 'string', multiple: true }, 'also-image-model': { type: 'string', multiple: true }, 'also-speech-model': { type: 'string', multiple: true }, 'base-url': { type: 'string' }, json: { type: 'boolean' } },
  });
  if (what !== 'companion') throw new DeskhandError('usage', 'media needs companion set|show|clear.');
  const companion = new CompanionModel(resolveDataDir(values['data-dir']));
  switch (sub) {
    case 'set': {
      if (!values.provider || !values.model) throw new DeskhandError('usage', 'media companion set needs --provider anthropic|openai|openai-compatible and --model NAME.');
      try {
        companion.save({
          provider: values.provider as 'openai',
          model: values.model,
          imageModel: values['image-model'] ?? null,
          baseURL: values['base-url'] ?? null,
          transcriptionModel: values['transcription-model'] ?? null,
          speechModel: values['speech-model'] ?? null,
          models: values['also-model'] ?? [],
          imageModels: values['also-image-model'] ?? [],
          speechModels: values['also-speech-model'] ?? [],
        });
      } catch (err) {
        throw new DeskhandError('usage', `Not saved: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}`);
      }
      process.stderr.write(`Companion model set: ${values.provider} ${values.model}${values['image-model'] ? `, images with ${values['image-model']}` : ''}.\n`);
      return 0;
    }
    case 'show': {
      const c = companion.config();
      process.stdout.write(values.json ? `${JSON.stringify(c)}\n` : c ? `${c.provider} ${c.model}${c.imageModel ? `, images: ${[c.imageModel, ...(c.imageModels ?? [])].join(', ')}` : ''}${c.speechModel ? `, speech: ${[c.speechModel, ...(c.speechModels ?? [])].join(', ')}` : ''}${c.baseURL ? ` at ${c.baseURL}` : ''}\n` : 'No companion model.\n');
      return 0;
    }
    case 'clear':
      companion.save(null);
      process.stderr.write('Companion model cleared.\n');
      return 0;
    default:
      throw new DeskhandError('usage', 'media companion needs set, show or clear.');
  }
}
