/**
 * Settings → Companion model: the vision model analyze_media asks about an image, and the image model generate_media
 * makes images with (issue 17). The same file `deskhand media companion set|show|clear` writes; its API key is the
 * provider's key saved above (or its environment variable).
 */
import { useEffect, useRef, useState } from 'react';
import type { CompanionConfigView } from '../../../shared/contract/media';
import { api, errorText } from '../../api/client';
import { Feedback } from '../common/Feedback';

type Provider = CompanionConfigView['provider'];
const LABEL: Record<Provider, string> = { anthropic: 'Anthropic', openai: 'OpenAI', 'openai-compatible': 'OpenAI-compatible' };
const blank = { provider: 'openai' as Provider, model: '', imageModel: '', baseURL: '', transcriptionModel: '', speechModel: '', models: '', imageModels: '', speechModels: '' };
/**
 * The text fields, in order: what each holds, its accessible name, an example, and (for what Anthropic does not do)
 * the placeholder that says so while the field is off.
 */
const FIELDS: { key: Exclude<keyof typeof blank, 'provider'>; label: string; aria: string; placeholder: string; anthropic?: string }[] = [
  { key: 'model', label: 'Vision model', aria: 'Companion vision model', placeholder: 'gpt-4o-mini' },
  { key: 'imageModel', label: 'Image model (optional)', aria: 'Companion image model', placeholder: 'gpt-image-1', anthropic: 'Anthropic makes no images' },
  { key: 'transcriptionModel', label: 'Transcription model (optional)', aria: 'Companion transcription model', placeholder: 'whisper-1', anthropic: 'Anthropic has no transcription API' },
  { key: 'speechModel', label: 'Speech model (optional)', aria: 'Companion speech model', placeholder: 'gpt-4o-mini-tts', anthropic: 'Anthropic makes no speech' },
  { key: 'models', label: 'Also these vision models (optional; a call picks one with its model argument)', aria: 'Companion also models', placeholder: 'gpt-4o, gpt-4.1-mini' },
  { key: 'imageModels', label: 'Also these image models (optional; a generate_media call picks one with its model argument)', aria: 'Companion also image models', placeholder: 'dall-e-3', anthropic: 'Anthropic makes no images' },
  { key: 'speechModels', label: 'Also these speech models (optional; a generate_media call picks one with its model argument)', aria: 'Companion also speech models', placeholder: 'tts-1-hd', anthropic: 'Anthropic makes no speech' },
  { key: 'baseURL', label: 'Base URL', aria: 'Companion base URL', placeholder: 'default' },
];
/** An "also" field: more vision, image or speech models a call may pick with its `model` argument, separated by commas or spaces. */
const modelList = (text: string) => [...new Set(text.split(/[\s,]+/).map((m) => m.trim()).filter(Boolean))];

/** The form's fields for a saved companion (or none). */
function toDraft(c: CompanionConfigView | null): typeof blank {
  return c
    ? {
        provider: c.provider,
        model: c.model,
        imageModel: c.imageModel ?? '',
        baseURL: c.baseURL ?? '',
        transcriptionModel: c.transcriptionModel ?? '',
        speechModel: c.speechModel ?? '',
        models: (c.models ?? []).join(', '),
        imageModels: (c.imageModels ?? []).join(', '),
        speechModels: (c.speechModels ?? []).join(', '),
      }
    : blank;
}

export function CompanionSettings() {
  const [draft, setDraft] = useState(blank);
  const [saved, setSaved] = useState<CompanionConfigView | null>(null);
  const [key, setKey] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The person typed before the saved companion arrived: the load must not overwrite what they typed. */
  const edited = useRef(false);
  const edit = (next: typeof blank) => {
    edited.current = true;
    setDraft(next);
  };

  // Unsaved changes: the form differs from the saved companion (the same one-save-per-section model as SectionSave.tsx).
  const dirty = JSON.stringify(draft) !== JSON.stringify(toDraft(saved));

  const show = (r: { companion: CompanionConfigView | null; key: string }) => {
    setSaved(r.companion);
    setKey(r.key);
    setDraft(toDraft(r.companion));
  };

  useEffect(() => {
    api()
      .getCompanion({})
      .then((r) => {
        if (!edited.current) show(r);
        else {
          setSaved(r.companion);
          setKey(r.key);
        }
      })
      .catch((err: unknown) => setError(errorText(err)));
  }, []);

  async function save(clear: boolean) {
    setError(null);
    setStatus(null);
    try {
      const companion = clear
        ? null
        : {
            provider: draft.provider,
            model: draft.model.trim(),
            imageModel: draft.imageModel.trim() || null,
            baseURL: draft.baseURL.trim() || null,
            transcriptionModel: draft.transcriptionModel.trim() || null,
            speechModel: draft.speechModel.trim() || null,
            models: modelList(draft.models),
            imageModels: draft.provider === 'anthropic' ? [] : modelList(draft.imageModels),
            speechModels: draft.provider === 'anthropic' ? [] : modelList(draft.speechModels),
          };
      show(await api().setCompanion({ companion }));
      setStatus(clear ? 'Companion model cleared: analyze_media and generate_media are off.' : 'Companion model saved.');
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section className="card" aria-labelledby="companion-title">
      <h2 id="companion-title" className="card-title">
        Companion model
      </h2>
      <p className="muted small">
        analyze_media sends an image and a question to this vision model; generate_media makes images with the image model and speech with the speech model (or one of the "also" models a call names); a recording goes to the transcription model. Both send data out, so they ask
        like any egress.
      </p>
      <label className="field">
        <span>Provider</span>
        <select aria-label="Companion provider" value={draft.provider} onChange={(e) => edit({ ...draft, provider: e.target.value as Provider })}>
          {(Object.keys(LABEL) as Provider[]).map((p) => (
            <option key={p} value={p}>
              {LABEL[p]}
            </option>
          ))}
        </select>
      </label>
      {FIELDS.map((f) => {
        const off = draft.provider === 'anthropic' ? f.anthropic : undefined;
        return (
          <label className="field" key={f.key}>
            <span>{f.key === 'baseURL' ? `Base URL ${draft.provider === 'openai-compatible' ? '(required)' : '(optional)'}` : f.label}</span>
            <input
              aria-label={f.aria}
              value={draft[f.key]}
              placeholder={off ?? (f.key === 'baseURL' ? (draft.provider === 'openai-compatible' ? 'http://127.0.0.1:11434/v1' : 'default') : f.placeholder)}
              disabled={off !== undefined}
              onChange={(e) => edit({ ...draft, [f.key]: e.target.value })}
              spellCheck={false}
            />
          </label>
        );
      })}
      <p className="muted small" aria-label="Companion key">
        {key}
      </p>
      <div className="actions">
        {dirty && <span className="muted small">Unsaved changes</span>}
        <button type="button" className="btn primary" disabled={!draft.model.trim()} onClick={() => void save(false)}>
          Save companion
        </button>
        {saved && (
          <button type="button" className="btn" onClick={() => void save(true)}>
            Clear
          </button>
        )}
      </div>
      <Feedback error={error} status={status} />
    </section>
  );
}
