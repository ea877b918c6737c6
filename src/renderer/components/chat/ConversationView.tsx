/** The center: header (title, folder, policy, model), the messages, the approvals of this conversation, the composer. */
import { useEffect } from 'react';
import { POLICIES, type Policy } from '../../../shared/tools';
import { SANDBOX_MODES, type SandboxMode } from '../../../shared/sandbox';
import { api, errorText } from '../../api/client';
import { useApprovals } from '../../state/approvals';
import { useConversations } from '../../state/conversations';
import { useMessages } from '../../state/messages';
import { useQueue } from '../../state/queue';
import { activeModelLabel, providerProblem, useSettings } from '../../state/settings';
import { drainQueue } from '../../state/sync';
import { useUi } from '../../state/ui';
import { RequestCard } from '../requests';
import { Notices } from '../shell/Notices';
import { Composer } from './Composer';
import { MessageList } from './MessageList';
import { ProfileSelect } from '../settings/McpSettings';
import { SubagentsPanel } from './SubagentsPanel';
import { ConversationUsage, ExportButton } from './MessageTools';
import { BudgetHoldCard, useBudgetHold } from '../usage/BudgetHold';
import { AttachmentFace } from './ComposerExtras';
import { FamilyToggles, ToolsPanel } from '../tools/ToolsPanel';
import { useConversationTools } from '../../state/conversation-tools';
import { useChanges } from '../../state/changes';
import { RewindPanel } from './TurnChanges';

const SANDBOX_LABEL: Record<SandboxMode, string> = {
  'workspace-write': 'Workspace',
  'read-only': 'Read-only',
  off: 'Off (asks)',
};

const POLICY_LABEL: Record<Policy, string> = {
  none: 'Ask for everything',
  'read-only': 'Allow read-only',
  'low-risk': 'Allow low-risk',
  'high-risk': 'Allow high-risk',
};

export function ConversationView() {
  const selectedId = useConversations((s) => s.selectedId);
  const conversation = useConversations((s) => s.list.find((c) => c.id === s.selectedId));
  const loading = useMessages((s) => s.loading);
  const error = useMessages((s) => s.error);
  const activeRun = useMessages((s) => s.activeRun);
  const approvals = useApprovals((s) => s.list);
  const settings = useSettings((s) => s.view);
  const mine = approvals.filter((a) => a.conversationId === selectedId);
  // With the connection gone, the last state main sent may be over: the run is shown as unknown, not as working.
  const offline = useUi((s) => s.connection !== 'open');

  useEffect(() => {
    if (selectedId !== useMessages.getState().conversationId) void useMessages.getState().open(selectedId);
  }, [selectedId]);
  // The tools listing follows the open conversation and each run's end (search_tools loads families as it works).
  const runKey = activeRun ? `${activeRun.runId}:${activeRun.status}` : '';
  useEffect(() => {
    void useConversationTools.getState().load(selectedId);
  }, [selectedId, runKey]);
  // What each turn changed on disk (the change ledger): with the transcript and again when a run ends or it reloads.
  const generation = useMessages((s) => s.generation);
  useEffect(() => {
    void useChanges.getState().load(selectedId);
  }, [selectedId, runKey, generation]);

  if (!selectedId || !conversation) return <EmptyState />;

  async function setPolicy(policy: Policy) {
    try {
      await api().setPolicy({ conversationId: selectedId!, policy });
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }

  async function setSandbox(sandbox: SandboxMode) {
    try {
      await api().setSandbox({ conversationId: selectedId!, sandbox });
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }

  const problem = providerProblem(settings);
  return (
    <main className="conversation" aria-label={`Conversation ${conversation.title}`}>
      <header className="conv-header">
        <div className="conv-title">
          <h1>{conversation.title}</h1>
          <span className="conv-folder" title={conversation.folder}>
            {conversation.folder}
          </span>
        </div>
        <div className="conv-meta">
          {conversation.subagentOf ? (
            // A child's policy and sandbox are its parent's at most, set by the parent's call (main refuses changes).
            <span className="run-chip" title="A subagent's policy, sandbox and tools come from its parent">
              Policy: {POLICY_LABEL[conversation.policy]} · sandbox: {conversation.sandbox} (from its parent)
            </span>
          ) : (
            <>
              <label className="policy">
                <span>Policy</span>
                <select value={conversation.policy} onChange={(e) => void setPolicy(e.target.value as Policy)} aria-describedby="policy-help">
                  {POLICIES.map((p) => (
                    <option key={p} value={p}>
                      {POLICY_LABEL[p]}
                    </option>
                  ))}
                </select>
              </label>
              <span id="policy-help" className="sr-only">
                Which tool calls run without asking. Applies from the next message.
              </span>
              <SandboxSelect value={conversation.sandbox} onChange={(v) => void setSandbox(v)} />
              <ProfileSelect conversationId={conversation.id} />
            </>
          )}
          <span className="model" title="Provider and model for new messages">
            {activeModelLabel(settings)}
          </span>
          <RunStatus />
          <ConversationUsage />
          <ExportButton conversationId={conversation.id} />
        </div>
      </header>
      {/* Tools: a row of its own under the header (the header does not wrap, so nothing jumps when a run starts). */}
      <div className="conv-tools-bar" role="toolbar" aria-label="Conversation tools">
        <ToolsButton />
        {!conversation.subagentOf && <FamilyToggles />}
      </div>
      {problem && (
        <div className="banner" role="status">
          {problem}{' '}
          <button type="button" className="link-button" onClick={() => useUi.getState().setView('settings')}>
            Open Settings → Providers
          </button>
        </div>
      )}
      <SubagentsPanel />
      <ToolsPanel />
      <div className="messages-area">
        <Notices inConversation />
        {loading ? (
          <p className="center-note" role="status">
            Loading the conversation…
          </p>
        ) : error ? (
          <p className="center-note error-text" role="alert">
            {error}
          </p>
        ) : (
          <MessageList />
        )}
      </div>
      {mine.length > 0 && (
        <section className="approval-dock" aria-label={`Approvals waiting in this conversation: ${mine.length}`}>
          {mine.map((a) => (
            <RequestCard key={a.approvalId} approval={a} />
          ))}
        </section>
      )}
      {offline && (activeRun || conversation.activity !== 'idle') ? (
        <div className="working unknown" role="status">
          Not connected to Deskhand: whether this run is still working is unknown until the connection is back.
        </div>
      ) : (
        (activeRun?.status === 'running' || conversation.activity === 'running') &&
        mine.length === 0 && (
          <div className="working" role="status">
            <span className="pulse" aria-hidden="true" /> Working…
          </div>
        )
      )}
      {!offline && activeRun?.status === 'parked' && <ParkedBar conversationId={selectedId} runId={activeRun.runId} />}
      <QueuedMessages conversationId={selectedId} activity={conversation.activity} />
      {!conversation.subagentOf && <RewindPanel />}
      {!conversation.subagentOf && <Composer />}
    </main>
  );
}

/** A run that waits for approvals nobody answered yet: it can be stopped instead (its calls are then not run). */
function ParkedBar({ conversationId, runId }: { conversationId: string; runId: string }) {
  const hold = useBudgetHold(conversationId, runId);
  if (hold) return <BudgetHoldCard hold={hold} />;
  return <ApprovalsParkedBar conversationId={conversationId} runId={runId} />;
}

function ApprovalsParkedBar({ conversationId, runId }: { conversationId: string; runId: string }) {
  async function stop() {
    try {
      await api().stopParkedRun({ conversationId, runId });
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }
  return (
    <div className="parked-bar" role="group" aria-label="Paused run">
      <span>This run is paused until you answer its approvals. Stopping it ends the run; the calls it asked for are not run.</span>
      <button type="button" className="btn danger" onClick={() => void stop()}>
        Stop run
      </button>
    </div>
  );
}

/** Messages typed while Deskhand was working: they go out, in order, when the conversation is idle again. */
function QueuedMessages({ conversationId, activity }: { conversationId: string; activity: 'idle' | 'running' | 'waiting' }) {
  const all = useQueue((s) => s.items);
  const sending = useQueue((s) => s.sending);
  const items = all.filter((q) => q.conversationId === conversationId && q.id !== sending);
  if (items.length === 0) return null;
  const when = activity === 'waiting' ? 'when the run ends (it waits for your approval)' : 'when Deskhand finishes this turn';
  return (
    <section className="queued-list" aria-label={`Queued messages: ${items.length}`}>
      {items.map((q) => (
        <article key={q.id} className="queued" aria-label="Queued message">
          <div className="queued-head">
            <span className="chip">Queued</span>
            <span className="muted small">{q.error ? 'Not sent:' : `Sends ${when}.`}</span>
            {q.error && <span className="error-text small">{q.error}</span>}
            <span className="spacer" />
            {q.error && (
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  useQueue.getState().fail(q.id, null);
                  drainQueue();
                }}
              >
                Retry
              </button>
            )}
            <button type="button" className="link-button" aria-label="Remove queued message" onClick={() => useQueue.getState().remove(q.id)}>
              Remove
            </button>
          </div>
          {q.text && <div className="queued-text">{q.text}</div>}
          {q.attachments.length > 0 && (
            <ul className="attachments queued-files" aria-label="Files queued with it">
              {q.attachments.map((a) => (
                <li key={a.id} className={`attachment attachment-${a.kind}`}>
                  <AttachmentFace file={a} />
                </li>
              ))}
            </ul>
          )}
        </article>
      ))}
    </section>
  );
}

function SandboxSelect({ value, onChange }: { value: SandboxMode; onChange: (v: SandboxMode) => void }) {
  const host = useUi((s) => s.host);
  const missing = host && !host.sandbox.available;
  return (
    <>
      <label className="policy">
        <span>Sandbox</span>
        <select value={value} onChange={(e) => onChange(e.target.value as SandboxMode)} aria-describedby="sandbox-help">
          {SANDBOX_MODES.map((m) => (
            <option key={m} value={m}>
              {SANDBOX_LABEL[m]}
            </option>
          ))}
        </select>
      </label>
      <span id="sandbox-help" className="sr-only">
        Where commands run: in the OS sandbox (the workspace writable or read-only, the rest of the disk read-only, secrets hidden, no network) or
        without it, asking before every command.
      </span>
      {missing && value !== 'off' && (
        <span className="run-chip sandbox-missing" role="status" title={host.sandbox.detail}>
          No OS sandbox here
        </span>
      )}
    </>
  );
}

/** Opens the /tools panel (also `/tools` typed in the composer). */
function ToolsButton() {
  const open = useConversationTools((s) => s.panelOpen);
  return (
    <button type="button" className="link-button" aria-expanded={open} title="What this conversation's agent may use (or type /tools)" onClick={() => useConversationTools.getState().openPanel()}>
      Tools {open ? '▴' : '▾'}
    </button>
  );
}

function RunStatus() {
  const activeRun = useMessages((s) => s.activeRun);
  const waiting = useApprovals((s) => (activeRun ? s.list.some((a) => a.runId === activeRun.runId) : false));
  const offline = useUi((s) => s.connection !== 'open');
  if (!activeRun) return null;
  if (offline) return <span className="run-chip run-unknown" title="The connection to Deskhand is lost: this shows how the run really stands once it is back">state unknown</span>;
  const label = activeRun.status === 'parked' ? 'paused for approval' : waiting ? 'waiting for you' : 'running';
  return <span className={`run-chip run-${activeRun.status}`}>{label}</span>;
}

function EmptyState() {
  const loaded = useConversations((s) => s.loaded);
  const count = useConversations((s) => s.list.length);
  return (
    <main className="conversation empty" aria-label="No conversation open">
      <div className="empty-state">
        <h1>{count ? 'Pick a conversation' : 'Welcome to Deskhand'}</h1>
        <p>
          {loaded && !count
            ? 'Each conversation works in one folder on this computer. Deskhand shows you every change before it happens.'
            : 'Choose one on the left, or start a new one.'}
        </p>
        <button type="button" className="btn primary" onClick={() => useUi.getState().openDialog({ kind: 'new' })}>
          New conversation
        </button>
      </div>
    </main>
  );
}
