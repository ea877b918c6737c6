/**
 * What a finished generate_media call made, inside its tool card: the image inline, or speech as an audio player,
 * with the model that made it and the file written. Main hands over only the copy that call stored in the media store
 * (`readMediaArtifact`, named on the call's own result); the renderer never names a file.
 */
import { useEffect, useState } from 'react';
import type { MethodResult, ToolItem } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { useMessages } from '../../state/messages';

export function MediaArtifact({ item }: { item: ToolItem }) {
  if (item.tool !== 'generate_media' || item.status !== 'ok') return null;
  // A call from before artifacts were kept names none (its file is still where it was written).
  const cut = item.output !== null && item.outputChars > item.output.length;
  if (!cut && !item.output?.includes('\nArtifact: ')) return null;
  return <Artifact item={item} />;
}

function Artifact({ item }: { item: ToolItem }) {
  const conversationId = useMessages((s) => s.conversationId);
  const [art, setArt] = useState<MethodResult<'readMediaArtifact'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!conversationId) return;
    let live = true;
    api()
      .readMediaArtifact({ conversationId, runId: item.runId, callId: item.callId })
      .then((r) => live && setArt(r))
      .catch((err: unknown) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [conversationId, item.runId, item.callId]);
  if (error) return <p className="muted small tool-shot-note">{error}</p>;
  if (!art) return <p className="muted small tool-shot-note">Loading what this call made…</p>;
  const name = art.path.split(/[\\/]/).pop() ?? art.path;
  return (
    <figure className="tool-shot tool-artifact" aria-label={art.kind === 'image' ? `Image made by ${art.model}` : `Speech made by ${art.model}`}>
      {art.kind === 'image' ? (
        <img src={art.dataUrl} alt={`${name}, made by ${art.model}`} title={art.path} />
      ) : (
        <audio controls preload="metadata" src={art.dataUrl} aria-label={`${name}, made by ${art.model}`} title={art.path} />
      )}
      <figcaption className="muted small">
        {art.model} · <code>{art.path}</code>
      </figcaption>
    </figure>
  );
}
