/** The right panel: approvals waiting in every conversation, oldest first. */
import { useApprovals } from '../../state/approvals';
import { useConversations } from '../../state/conversations';
import { openApproval } from '../../state/sync';
import { RiskBadge } from '../requests';
import { AllowNotifications } from './AllowNotifications';

export function ApprovalsPanel() {
  const list = useApprovals((s) => s.list);
  const selectedId = useConversations((s) => s.selectedId);
  return (
    <aside className={`panel ${list.length === 0 ? 'panel-empty' : ''}`} aria-label="Approvals waiting">
      <h2 className="panel-title">
        Approvals waiting <span className="count">{list.length}</span>
      </h2>
      <AllowNotifications />
      {list.length === 0 ? (
        <p className="muted small panel-empty-note">Nothing is waiting. When the agent asks before it acts, the request appears here, from every conversation.</p>
      ) : (
        <ul className="panel-list">
          {list.map((a) => (
            <li key={a.approvalId}>
              <button
                type="button"
                className={`panel-item ${a.conversationId === selectedId ? 'here' : ''}`}
                onClick={() => openApproval(a.conversationId, a.approvalId)}
                aria-label={`Review: ${a.title} in ${a.conversationTitle}`}
              >
                <span className="panel-item-top">
                  <strong>{a.title}</strong>
                  {a.kind === 'approval' ? <RiskBadge risk={a.risk} /> : <span className="chip">needs your answer</span>}
                </span>
                <span className="panel-item-desc">{a.description}</span>
                <span className="panel-item-conv">
                  {a.subagent ? `Subagent (${a.subagent.type}) “${a.subagent.description}”` : a.conversationTitle}
                  {a.runStatus === 'parked' ? ' · paused' : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
