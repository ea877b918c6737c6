/**
 * Browser screenshots inside a tool card (browser family): a finished `browser_screenshot` shows the PNG it saved
 * (read by main from the call's own output, only inside the browser's screenshot folder: `readBrowserScreenshot`), and
 * a browser call that is running shows the live strip of the page as it changes (the small JPEGs of `browserChanged`),
 * kept on the card for as long as the window is open.
 */
import { useEffect, useRef, useState } from 'react';
import type { ToolItem } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { useBrowser } from '../../state/browser';
import { useMessages } from '../../state/messages';

export function BrowserCardShots({ item }: { item: ToolItem }) {
  if (!item.tool.startsWith('browser_')) return null;
  if (item.tool === 'browser_screenshot') return item.status === 'ok' ? <SavedShot item={item} /> : null;
  return <LiveStrip item={item} />;
}

function SavedShot({ item }: { item: ToolItem }) {
  const conversationId = useMessages((s) => s.conversationId);
  const [shot, setShot] = useState<{ url: string; path: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!conversationId) return;
    let live = true;
    api()
      .readBrowserScreenshot({ conversationId, runId: item.runId, callId: item.callId })
      .then((r) => live && setShot({ url: r.dataUrl, path: r.path }))
      .catch((err: unknown) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [conversationId, item.runId, item.callId]);
  if (error) return <p className="muted small tool-shot-note">{error}</p>;
  if (!shot) return <p className="muted small tool-shot-note">Loading the screenshot…</p>;
  return (
    <figure className="tool-shot">
      <img src={shot.url} alt="Screenshot saved by this call" title={shot.path} />
    </figure>
  );
}

const KEEP = 4;

function LiveStrip({ item }: { item: ToolItem }) {
  const conversationId = useMessages((s) => s.conversationId);
  const running = item.status === 'running';
  const latest = useBrowser((s) => (running && s.conversationId === conversationId ? (s.strip.at(-1) ?? null) : null));
  const [shots, setShots] = useState<string[]>([]);
  // The page as it was before this call is not this call's: only shots that arrive while it runs are kept.
  const before = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (running && before.current === undefined) before.current = useBrowser.getState().strip.at(-1) ?? null;
  }, [running]);
  useEffect(() => {
    if (latest && latest !== before.current) setShots((s) => (s.at(-1) === latest ? s : [...s, latest].slice(-KEEP)));
  }, [latest]);
  if (!shots.length) return null;
  return (
    <div className="tool-shot-strip" aria-label={running ? 'The page while this call runs' : 'The page during this call'}>
      {shots.map((src, i) => (
        <img key={i} src={src} alt={i === shots.length - 1 ? 'The page during this call' : 'An earlier view during this call'} />
      ))}
    </div>
  );
}
