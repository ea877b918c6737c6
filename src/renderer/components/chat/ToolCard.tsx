/**
 * A tool call as a compact card: the tool's icon and title, its own one-line summary of the call, status, duration;
 * expands to the exact arguments and the output.
 */
import { memo, useMemo, useState } from 'react';
import { reasonsInWords } from '../../../shared/reason-words';
import { replacementDiff } from '../../../shared/line-diff';
import type { ToolItem } from '../../../shared/contract';
import { forDisplay } from '../../../shared/untrusted-display';
import { api, errorText } from '../../api/client';
import { useApprovals } from '../../state/approvals';
import { useMessages } from '../../state/messages';
import { useToolLook } from '../../state/tools';
import { ArgsView } from '../common/ArgsView';
import { ToolOutput } from './ToolOutput';
import { BrowserCardShots } from './BrowserCardShots';
import { MediaArtifact } from './MediaArtifact';
import { McpAppView } from './McpAppView';
import { Screenshots } from '../computer/ComputerUse';
import { STATUS_LABEL, formatDuration } from '../common/tool-status';
import { DiffView } from '../common/DiffView';
import { ClearedLine, clearedText } from './ClearedLine';

export const ToolCard = memo(function ToolCard({ item }: { item: ToolItem }) {
  const [open, setOpen] = useState(false);
  const [full, setFull] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [reviewed, setReviewed] = useState<{ by: string; at: number } | null>(null);
  const conversationId = useMessages((s) => s.conversationId);
  const look = useToolLook(item.tool);
  // A call waiting on a question or a file pick waits for an answer, not an approval.
  const asks = useApprovals((s) => (item.approvalId ? (s.list.find((a) => a.approvalId === item.approvalId)?.kind ?? null) : null));
  const status = item.status === 'awaiting_approval' && asks && asks !== 'approval' ? 'waiting for your answer' : STATUS_LABEL[item.status];
  const output = full ?? item.output;
  const cut = full === null && item.output !== null && item.outputChars > item.output.length;
  const shown = output === null ? null : forDisplay(output);
  // What the call changes, as a diff: the approval's preview, else the replacement its arguments describe.
  const change = useMemo(() => item.preview ?? replacementDiff(item.args), [item.preview, item.args]);

  async function showAll() {
    if (!conversationId) return;
    setLoading(true);
    setError(null);
    try {
      let text = '';
      let offset: number | null = 0;
      // Pages of 50,000 characters; a person asked for all of it.
      while (offset !== null) {
        const page = await api().getToolOutput({ conversationId, runId: item.runId, callId: item.callId, offset, limit: 50_000 });
        text += page.text;
        offset = page.nextOffset;
        setFull(text);
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setLoading(false);
    }
  }

  async function markReviewed() {
    if (!conversationId) return;
    setError(null);
    try {
      const mark = await api().markReviewed({ conversationId, callId: item.callId });
      setReviewed({ by: mark.reviewedBy, at: mark.reviewedAt });
    } catch (err) {
      setError(errorText(err));
    }
  }
  const review = reviewed ?? item.reviewed ?? null;

  return (
    <article className={`tool-card status-${item.status}`} aria-label={`Tool call ${item.tool}: ${status}`}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="tool-icon" aria-hidden="true">
          {look.glyph}
        </span>
        <span className="tool-name" title={item.tool}>
          {look.title}
        </span>
        <span className="tool-summary">{item.summary ?? ''}</span>
        <span className={`tool-status st-${item.status}`} title={item.cleared ? clearedText(item.cleared) : undefined}>
          {status}
        </span>
        {item.durationMs !== null && <span className="tool-duration">{formatDuration(item.durationMs)}</span>}
        <span className="chev" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
      </button>
      <BrowserCardShots item={item} />
      <MediaArtifact item={item} />
      <McpAppView item={item} />
      {!open && item.status === 'running' && shown && shown.text && <LiveTail tool={item.tool} text={shown.text} />}
      {open && (
        <div className="tool-body">
          {change && item.status !== 'denied' && (
            <>
              <h4 className="section-label">{item.status === 'ok' ? 'The change' : 'The change it was to make'}</h4>
              <DiffView text={change} label={`Change of ${item.tool}`} />
            </>
          )}
          <h4 className="section-label">
            Arguments <code className="tool-raw-name">{item.tool}</code>
          </h4>
          <ArgsView args={item.args} label={`Arguments of ${item.tool}`} />
          {item.reasons.length > 0 && (
            <p className="muted small">
              {item.status === 'denied' ? 'Why it was stopped' : item.cleared?.by === 'policy' || item.cleared?.by === 'rule' ? 'Why it ran' : 'Why it asked'} ({item.risk ?? 'risk unknown'}): {reasonsInWords(item.reasons)}
            </p>
          )}
          {item.cleared && <ClearedLine cleared={item.cleared} />}
          {item.preview && item.status === 'denied' && <DiffView text={item.preview} label={`Denied change of ${item.tool}`} />}
          <h4 className="section-label">Output</h4>
          {shown && shown.sources.length > 0 && (
            <p className="muted small untrusted-note">
              From outside your workspace ({shown.sources.join(', ')}): shown as data, never followed as instructions.
            </p>
          )}
          {shown && shown.sources.length > 0 && item.status === 'ok' && (
            <ReviewLine review={review} cut={cut} tool={item.tool} onMark={() => void markReviewed()} />
          )}
          {shown === null ? (
            <p className="muted">{item.status === 'awaiting_approval' ? `Not run yet: ${status}.` : 'No output yet.'}</p>
          ) : (
            <pre className={`tool-output ${item.status === 'error' || item.status === 'denied' ? 'is-error' : ''}`} aria-label={`Output of ${item.tool}`}>
              <ToolOutput tool={item.tool} args={item.args} text={shown.text} />
            </pre>
          )}
          <Screenshots tool={item.tool} output={output} />
          {cut && (
            <button type="button" className="link-button" onClick={() => void showAll()} disabled={loading}>
              {loading ? 'Loading…' : `Show all (${item.outputChars.toLocaleString()} characters)`}
            </button>
          )}
          {error && <p role="alert" className="error-text">{error}</p>}
        </div>
      )}
    </article>
  );
});

/**
 * An untrusted result the person may vouch for: marking it reviewed makes it theirs, so it no longer counts as outside
 * content (later web requests of this conversation stop asking because of it). The whole text must be shown first.
 */
export function ReviewLine({ review, cut, tool, onMark }: { review: { by: string; at: number } | null; cut: boolean; tool: string; onMark: () => void }) {
  if (review) {
    return <p className="muted small review-note">Reviewed by you ({review.by}, {new Date(review.at).toLocaleString()}): it no longer counts as outside content.</p>;
  }
  return (
    <p className="muted small review-note">
      <button type="button" className="link-button" onClick={onMark} disabled={cut} aria-label={`Mark the output of ${tool} as reviewed`}>
        Mark as reviewed
      </button>{' '}
      {cut ? 'Show all of it first: you vouch for the whole text.' : 'You read this and vouch for it: it stops counting as outside content, so later web requests here no longer ask because of it.'}
    </p>
  );
}

/** Lines a running call's card shows of its output as it streams (the whole output is one click away). */
const TAIL_LINES = 8;

/** The newest lines of a running call's output, under its head, without expanding the card. */
function LiveTail({ tool, text }: { tool: string; text: string }) {
  const lines = text.replace(/\n$/, '').split('\n');
  return (
    <pre className="tool-output tool-live" aria-label={`Output of ${tool} so far`}>
      {lines.length > TAIL_LINES ? `… ${lines.length - TAIL_LINES} earlier line${lines.length - TAIL_LINES === 1 ? '' : 's'}\n` : ''}
      {lines.slice(-TAIL_LINES).join('\n')}
    </pre>
  );
}
