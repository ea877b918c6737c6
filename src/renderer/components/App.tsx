/** The window: top bar, sidebar, the conversation (or settings), the approvals panel, dialogs and notices. */
import { useEffect } from 'react';
import { useApprovals } from '../state/approvals';
import { useSettings } from '../state/settings';
import { useUi } from '../state/ui';
import { ApprovalsPanel } from './ApprovalsPanel';
import { BackgroundTasksPanel } from './BackgroundTasksPanel';
import { ComputerBanner } from './ComputerUse';
import { ConversationView } from './ConversationView';
import { Dialogs } from './Dialogs';
import { FirstRunPanel } from './FirstRunPanel';
import { SettingsPage } from './SettingsPage';
import { Sidebar } from './Sidebar';
import { TodosPanel } from './TodosPanel';

export function App() {
  const view = useUi((s) => s.view);
  const panelOpen = useUi((s) => s.panelOpen);
  const needsSetup = useSettings((s) => s.view?.firstRun ?? false);
  const dismissed = useUi((s) => s.firstRunDismissed);
  const firstRun = needsSetup && !dismissed;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'n') {
        e.preventDefault();
        useUi.getState().openDialog({ kind: 'new' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className={`app ${panelOpen ? 'with-panel' : ''}`}>
      <TopBar />
      <ComputerBanner />
      <Sidebar />
      {view === 'settings' ? <SettingsPage /> : firstRun ? <FirstRunPanel /> : <ConversationView />}
      {panelOpen && (
        <div className="panel-stack">
          <ApprovalsPanel />
          <BackgroundTasksPanel />
          <TodosPanel />
        </div>
      )}
      <Dialogs />
      <Notices />
    </div>
  );
}

function TopBar() {
  const count = useApprovals((s) => s.list.length);
  const panelOpen = useUi((s) => s.panelOpen);
  const view = useUi((s) => s.view);
  const connection = useUi((s) => s.connection);
  return (
    <header className="topbar">
      <span className="brand">Deskhand</span>
      {connection !== 'open' && (
        <span className="conn" role="status">
          {connection === 'connecting' ? 'Connecting…' : 'Disconnected — retrying. If Deskhand restarted, open the new URL it printed.'}
        </span>
      )}
      <span className="spacer" />
      <button
        type="button"
        className={`topbar-button ${count ? 'attention' : ''}`}
        aria-pressed={panelOpen}
        aria-label={`Approvals waiting: ${count}`}
        onClick={() => useUi.getState().togglePanel()}
      >
        Approvals <span className="badge">{count}</span>
      </button>
      <button type="button" className="topbar-button" aria-pressed={view === 'settings'} onClick={() => useUi.getState().setView(view === 'settings' ? 'chat' : 'settings')}>
        Settings
      </button>
    </header>
  );
}

function Notices() {
  const notices = useUi((s) => s.notices);
  return (
    <div className="notices" aria-live="assertive">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <span>{n.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => useUi.getState().dismiss(n.id)}>
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}
