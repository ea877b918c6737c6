/**
 * The conversation's subagents as a tree (children of children too): status, type, description, duration, tokens and
 * cost; a child's transcript opens read-only (the same message list) with the way back to its parent; running
 * children can be steered (the message reaches them before their next model call) or cancelled. In a child's own
 * transcript, a bar names its parent and links back.
 */
import { useEffect, useState } from 'react';
import type { SubagentView } from '../../../shared/contract/subagents';
import { api } from '../../api/client';
import { useApprovals } from '../../state/approvals';
import { useConversations } from '../../state/conversations';
import { childrenOf, useSubagents } from './subagents';
import { selectConversation } from '../../state/sync';
import { formatDuration } from '../common/tool-status';

const STATUS_LABEL: Record<SubagentView['status'], string> = {
  queued: 'queued',
  running: 'running',
  waiting: 'waiting for approval',
  finished: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  timed_out: 'timed out',
};

const live = (s: SubagentView) => s.status === 'queued' || s.status === 'running' || s.status === 'waiting';

export function SubagentsPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const list = useSubagents((s) => s.list);
  const self = useSubagents((s) => s.self);
  const error = useSubagents((s) => s.error);
  const approvals = useApprovals((s) => s.list.length);

  useEffect(() => {
    void useSubagents.getState().load(selectedId);
  }, [selectedId, approvals]);
  useEffect(
    () =>
      api().on('subagentsChanged', () => {
        const open = useSubagents.getState().conversationId;
        if (open) void useSubagents.getState().load(open);
      }),
    [],
  );

  if (!selectedId || useSubagents.getState().conversationId !== selectedId) return null;
  const top = childrenOf(list, null, selectedId);
  const running = list.filter(live).length;
  return (
    <>
      {self && (
        <div className="subagent-of" role="region" aria-label="Subagent transcript">
          <span>
            Subagent ({self.type}) of <strong>{self.parentTitle}</strong> · {STATUS_LABEL[self.status]} — its transcript is read-only.
          </span>
          <button type="button" className="link-button" onClick={() => selectConversation(self.parentConversationId)}>
            ← Back to {self.parentTitle}
          </button>
          {live(self) && <Controls node={self} />}
        </div>
      )}
      {list.length > 0 && (
        <details className="subagents" open aria-label="Subagents">
          <summary className="subagents-title">
            Subagents <span className="count">{running ? `${running} running` : list.length}</span>
          </summary>
          {error && (
            <p role="alert" className="error-text small">
              {error}
            </p>
          )}
          <ul className="subagent-tree" role="tree" aria-label="Subagent tree">
            {top.map((n) => (
              <Node key={n.id} node={n} list={list} />
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function Node({ node, list }: { node: SubagentView; list: readonly SubagentView[] }) {
  const kids = childrenOf(list, node, '');
  const waiting = useApprovals((s) => s.list.some((a) => a.subagent?.id === node.id));
  const status = node.status === 'running' && waiting ? 'waiting' : node.status;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!live(node)) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [node]);
  const took = node.startedAt ? formatDuration((node.finishedAt ?? now) - node.startedAt) : '';
  const tokens = node.inputTokens + node.outputTokens;
  return (
    <li role="treeitem" aria-expanded={kids.length ? true : undefined} aria-selected={false} className={`subagent sa-${status}`} aria-label={`Subagent ${node.description}: ${STATUS_LABEL[status]}`}>
      <div className="subagent-row">
        <button type="button" className="subagent-open" title="Open its transcript (read-only)" onClick={() => selectConversation(node.conversationId)}>
          <span className="chip">{node.type}</span> <span className="subagent-desc">{node.description}</span>
        </button>
        <span className={`task-status sa-status-${status}`}>{STATUS_LABEL[status]}</span>
        <span className="muted small" aria-label="Spend">
          {took && `${took} · `}
          {tokens.toLocaleString()} tokens · ${node.costUSD.toFixed(4)}
        </span>
        {node.tainted && (
          <span className="chip" title="It read untrusted content">
            untrusted
          </span>
        )}
      </div>
      {node.error && <p className="muted small subagent-error">{node.error}</p>}
      {live(node) && <Controls node={node} />}
      {kids.length > 0 && (
        <ul role="group" className="subagent-tree">
          {kids.map((k) => (
            <Node key={k.id} node={k} list={list} />
          ))}
        </ul>
      )}
    </li>
  );
}

function Controls({ node }: { node: SubagentView }) {
  const busy = useSubagents((s) => s.busy.includes(node.id));
  const [steering, setSteering] = useState(false);
  const [text, setText] = useState('');
  async function send() {
    if (!text.trim()) return;
    if (await useSubagents.getState().steer(node.id, text.trim())) {
      setText('');
      setSteering(false);
    }
  }
  return (
    <div className="subagent-controls">
      {steering ? (
        <form
          className="subagent-steer"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <input aria-label={`Message to ${node.description}`} value={text} onChange={(e) => setText(e.target.value)} placeholder="Reaches it before its next model call" autoFocus />
          <button type="submit" className="btn" disabled={busy || !text.trim()}>
            Send
          </button>
          <button type="button" className="link-button" onClick={() => setSteering(false)}>
            Close
          </button>
        </form>
      ) : (
        <button type="button" className="btn" aria-label={`Steer ${node.description}`} onClick={() => setSteering(true)}>
          Steer
        </button>
      )}
      <button type="button" className="btn danger" aria-label={`Cancel ${node.description}`} disabled={busy} onClick={() => void useSubagents.getState().cancel(node.id)}>
        {busy ? 'Cancelling…' : 'Cancel'}
      </button>
    </div>
  );
}
