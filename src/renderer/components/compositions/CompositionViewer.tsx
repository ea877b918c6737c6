/**
 * The full-size composition viewer beside the conversation (issue 17). Each version renders in an iframe with
 * `sandbox="allow-scripts"` (an opaque origin: no access to the app) from a ticketed page that main serves with a strict
 * CSP: scripts run, nothing is fetched, no form posts, no top navigation. What the page tried and was blocked from is
 * reported by a script main injects, and listed here. Versions compare side by side with a text diff of the source or
 * a visual diff of images; the person comments, asks for changes or approves one version.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { CompositionDetailView } from '../../../shared/contract';
import { lineDiff } from '../../../shared/line-diff';
import { api, errorText } from '../../api/client';
import { takeEarlyTicket, useCompositions } from '../../state/compositions';
import { useUi } from '../../state/ui';
import { DiffView } from '../common/DiffView';
import { CompositionExports } from './CompositionExports';

export interface Blocked {
  kind: string;
  detail: string;
}

const BLOCK_WORDS: Record<string, string> = {
  'connect-src': 'Network request',
  'img-src': 'Remote image',
  'font-src': 'Remote font',
  'style-src': 'Remote style sheet',
  'style-src-elem': 'Remote style sheet',
  'script-src': 'Remote script',
  'script-src-elem': 'Remote script',
  'media-src': 'Remote media',
  'frame-src': 'Embedded frame',
  'child-src': 'Embedded frame',
  'worker-src': 'Worker',
  'form-action': 'Form post',
  navigation: 'Navigation of the app window',
  popup: 'Pop-up window',
  'default-src': 'Outside resource',
};

/** One version in a sandboxed frame, with what it was blocked from. */
function Frame({ id, version, title, onPainted }: { id: string; version: number; title: string; onPainted?: () => void }) {
  const ref = useRef<HTMLIFrameElement>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [blocked, setBlocked] = useState<Blocked[]>([]);
  const [error, setError] = useState<string | null>(null);
  const painted = useRef(onPainted);
  painted.current = onPainted;

  useEffect(() => {
    let live = true;
    setBlocked([]);
    setUrl(null);
    (takeEarlyTicket(id, version) ?? api().openComposition({ id, version }))
      .then((r) => live && setUrl(r.url))
      .catch((err: unknown) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [id, version]);

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      // Only this frame's own reports (its origin is opaque: "null"); anything else is ignored.
      if (!ref.current || e.source !== ref.current.contentWindow) return;
      const d = e.data as { deskhandComposition?: number; kind?: unknown; detail?: unknown };
      if (!d || d.deskhandComposition !== 1 || typeof d.kind !== 'string') return;
      if (d.kind === 'painted') {
        painted.current?.();
        return;
      }
      const item = { kind: d.kind.slice(0, 40), detail: String(d.detail ?? '').slice(0, 300) };
      setBlocked((list) => (list.some((b) => b.kind === item.kind && b.detail === item.detail) || list.length >= 100 ? list : [...list, item]));
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  return (
    <div className="comp-frame">
      {error && <p role="alert" className="error-text small">{error}</p>}
      {url && <iframe ref={ref} src={url} sandbox="allow-scripts" referrerPolicy="no-referrer" title={`${title}, version ${version}`} />}
      <section className="comp-blocked" aria-label={`Blocked in version ${version}`}>
        {blocked.length === 0 ? (
          <p className="muted small">Nothing blocked: this page has not tried to reach anything outside it.</p>
        ) : (
          <>
            <h3 className="small">Blocked ({blocked.length}) — nothing left this machine</h3>
            <ul>
              {blocked.map((b, i) => (
                <li key={i}>
                  <strong>{BLOCK_WORDS[b.kind] ?? b.kind}</strong> <span className="mono">{b.detail}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </div>
  );
}

/** Differing pixels of two images, in red over a faded copy of the newer one, and the share that differs. */
function ImageDiff({ left, right }: { left: string; right: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [summary, setSummary] = useState('Comparing…');
  useEffect(() => {
    const load = (src: string) =>
      new Promise<HTMLImageElement>((res, rej) => {
        const img = new Image();
        img.onload = () => res(img);
        img.onerror = () => rej(new Error('image did not load'));
        img.src = src;
      });
    void Promise.all([load(left), load(right)])
      .then(([a, b]) => {
        const w = Math.max(a.naturalWidth, b.naturalWidth);
        const h = Math.max(a.naturalHeight, b.naturalHeight);
        const draw = (img: HTMLImageElement) => {
          const c = document.createElement('canvas');
          c.width = w;
          c.height = h;
          const g = c.getContext('2d')!;
          g.drawImage(img, 0, 0);
          return g.getImageData(0, 0, w, h);
        };
        const da = draw(a);
        const db = draw(b);
        const out = new ImageData(w, h);
        let differ = 0;
        for (let i = 0; i < da.data.length; i += 4) {
          const delta = Math.abs(da.data[i]! - db.data[i]!) + Math.abs(da.data[i + 1]! - db.data[i + 1]!) + Math.abs(da.data[i + 2]! - db.data[i + 2]!) + Math.abs(da.data[i + 3]! - db.data[i + 3]!);
          if (delta > 24) {
            differ++;
            out.data.set([220, 30, 30, 255], i);
          } else {
            const v = 255 - (255 - (db.data[i]! + db.data[i + 1]! + db.data[i + 2]!) / 3) * 0.25;
            out.data.set([v, v, v, 255], i);
          }
        }
        const c = canvas.current;
        if (!c) return;
        c.width = w;
        c.height = h;
        c.getContext('2d')!.putImageData(out, 0, 0);
        const pct = (differ / (w * h)) * 100;
        setSummary(differ === 0 ? 'The images are identical.' : `${pct < 0.01 ? '<0.01' : pct.toFixed(2)}% of pixels differ (${differ} of ${w * h}), shown in red.`);
      })
      .catch((err: unknown) => setSummary(`Could not compare: ${errorText(err)}`));
  }, [left, right]);
  return (
    <figure className="comp-imgdiff" aria-label="Visual difference">
      <canvas ref={canvas} />
      <figcaption role="status">{summary}</figcaption>
    </figure>
  );
}

function SourceDiff({ c, left, right }: { c: CompositionDetailView; left: number; right: number }) {
  const [sources, setSources] = useState<[Awaited<ReturnType<ReturnType<typeof api>['getCompositionSource']>>, Awaited<ReturnType<ReturnType<typeof api>['getCompositionSource']>>] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setSources(null);
    Promise.all([api().getCompositionSource({ id: c.id, version: left }), api().getCompositionSource({ id: c.id, version: right })])
      .then((s) => live && setSources(s))
      .catch((err: unknown) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [c.id, left, right]);
  const diff = useMemo(() => (sources && sources[0].text !== null && sources[1].text !== null ? lineDiff(sources[0].text, sources[1].text, `version ${left}`, `version ${right}`) : null), [sources, left, right]);
  if (error) return <p role="alert" className="error-text small">{error}</p>;
  if (!sources) return <p className="muted small">Loading the sources…</p>;
  if (sources[0].dataUrl && sources[1].dataUrl) return <ImageDiff left={sources[0].dataUrl} right={sources[1].dataUrl} />;
  if (!diff) return <p className="muted small">These versions are too large to compare here.</p>;
  return (
    <div className="comp-diff">
      {(sources[0].truncated || sources[1].truncated) && <p className="muted small">The sources were cut at 2 MB for the comparison.</p>}
      <DiffView text={diff} label={`Source changes from version ${left} to version ${right}`} />
    </div>
  );
}

const REVIEW_WORDS = { pending: 'waiting for review', approved: 'approved', changes_requested: 'changes requested' } as const;

export function CompositionViewer() {
  const c = useCompositions((s) => s.open);
  const openedAt = useCompositions((s) => s.openedAt);
  const [version, setVersion] = useState<number | null>(null);
  const [compare, setCompare] = useState<number | null>(null);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [paintMs, setPaintMs] = useState<number | null>(null);
  const latest = c?.latestVersion ?? null;

  // A new composition, or a new version of this one: show the latest.
  useEffect(() => {
    setVersion(latest);
    setCompare(null);
    setPaintMs(null);
  }, [c?.id, latest]);

  if (!c || version === null) return null;
  const v = c.versions.find((x) => x.version === version) ?? c.versions.at(-1)!;
  const other = compare !== null ? (c.versions.find((x) => x.version === compare) ?? null) : null;

  async function review(action: 'comment' | 'approve' | 'changes') {
    if (!c) return;
    setBusy(true);
    try {
      const r = await api().reviewComposition({ id: c.id, version: v.version, action, text });
      setText('');
      const done = { approve: `Version ${v.version} approved; the agent reads it with your next message.`, comment: 'Comment saved; the agent reads it with your next message.', changes: 'Sent to the agent: it is revising.' }[action];
      useUi.getState().notify(r.note ?? done, 'info');
      await useCompositions.getState().refreshOpen();
    } catch (err) {
      useUi.getState().notify(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="comp-viewer" aria-label={`Composition ${c.title}`} data-paint-ms={paintMs ?? undefined}>
      <header className="comp-head">
        <h2>{c.title}</h2>
        <label className="small">
          Version{' '}
          <select aria-label="Version" value={v.version} onChange={(e) => setVersion(Number(e.target.value))}>
            {c.versions.map((x) => (
              <option key={x.version} value={x.version}>
                {x.version}
                {x.revises ? ` (revises ${x.revises})` : ''}
              </option>
            ))}
          </select>
        </label>
        <span className={`comp-state comp-${v.review}`} role="status">
          {REVIEW_WORDS[v.review]}
        </span>
        {c.versions.length > 1 && (
          <label className="small">
            Compare with{' '}
            <select aria-label="Compare with" value={compare ?? ''} onChange={(e) => setCompare(e.target.value === '' ? null : Number(e.target.value))}>
              <option value="">—</option>
              {c.versions
                .filter((x) => x.version !== v.version)
                .map((x) => (
                  <option key={x.version} value={x.version}>
                    {x.version}
                  </option>
                ))}
            </select>
          </label>
        )}
        <span className="spacer" />
        <CompositionExports id={c.id} version={v.version} />
        <button type="button" className="icon-button" aria-label="Close the viewer" onClick={() => useCompositions.getState().close()}>
          ✕
        </button>
      </header>
      <div className={`comp-body ${other ? 'side-by-side' : ''}`}>
        {other && <Frame key={`${c.id}-${other.version}`} id={c.id} version={other.version} title={c.title} />}
        <Frame key={`${c.id}-${v.version}`} id={c.id} version={v.version} title={c.title} onPainted={() => setPaintMs((p) => p ?? Math.round(performance.now() - openedAt))} />
      </div>
      {other && <SourceDiff c={c} left={Math.min(other.version, v.version)} right={Math.max(other.version, v.version)} />}
      <div className="comp-review">
        <textarea aria-label={`Comment on version ${v.version}`} placeholder={`Comment on version ${v.version}…`} value={text} onChange={(e) => setText(e.target.value)} rows={2} />
        <div className="comp-actions">
          <button type="button" className="btn" disabled={busy || !text.trim()} onClick={() => void review('comment')}>
            Comment
          </button>
          <button type="button" className="btn" disabled={busy || !text.trim()} onClick={() => void review('changes')}>
            Ask for changes
          </button>
          <button type="button" className="btn primary" disabled={busy || v.review === 'approved'} onClick={() => void review('approve')}>
            Approve version {v.version}
          </button>
        </div>
        {c.comments.length > 0 && (
          <ul className="comp-comments" aria-label="Review history">
            {c.comments.map((m, i) => (
              <li key={i}>
                <span className="muted">v{m.version} · {m.kind === 'approve' ? 'approved' : m.kind === 'changes' ? 'asked for changes' : 'comment'}</span> {m.text}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
