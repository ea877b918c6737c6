/**
 * The window: top bar, sidebar, the conversation (or settings), the approvals panel, dialogs and notices.
 *
 * `components/` is grouped as this window is, one folder per part it draws, and holds no loose files, so a new
 * component has to say which part it belongs to:
 *   shell/         the frame this file lays out: top bar, sidebar, splitters, dialogs, notices, theme, the layout store.
 *                  A folder rather than the root, so the root never again collects files side by side.
 *   chat/          the conversation: its view, transcript, composer, tool cards, the subagents strip above it.
 *   requests/      the cards that ask the person something (approvals, questions, secrets, plans, goals).
 *   panels/        the right panel's sections (approvals, browser, background tasks, workflows, missions, goals,
 *                  todos, reminders).
 *   compositions/  the compositions panel and the composition viewer.
 *   computer/      computer use: its banner, screenshots in tool cards, Settings → App grants.
 *   settings/      the Settings page, its sections, and the first-run setup (it saves the same provider settings).
 *   tools/         the conversation's tools panel and Settings → Tools.
 *   common/        widgets used by more than one folder (Markdown, diffs, visible text, feedback, tool status).
 * A store used by one folder only lives in that folder; stores several folders (or state/sync.ts) use stay in state/.
 */
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { useApprovals } from '../../state/approvals';
import { useSettings } from '../../state/settings';
import { useUi } from '../../state/ui';
import { ApprovalsPanel } from '../panels/ApprovalsPanel';
import { BackgroundTasksPanel } from '../panels/BackgroundTasksPanel';
import { WorkflowsPanel } from '../panels/WorkflowsPanel';
import { MissionBoard } from '../panels/MissionBoard';
import { CompositionsPanel } from '../compositions/CompositionsPanel';
import { CompositionViewer } from '../compositions/CompositionViewer';
import { useCompositions } from '../../state/compositions';
import { ComputerBanner } from '../computer/ComputerUse';
import { ConversationView } from '../chat/ConversationView';
import { Dialogs } from './Dialogs';
import { Notices } from './Notices';
import { FirstRunPanel } from '../settings/FirstRunPanel';
import { SettingsPage } from '../settings/SettingsPage';
import { UsagePage } from '../usage/UsagePage';
import { Sidebar } from './Sidebar';
import { TodosPanel } from '../panels/TodosPanel';
import { RemindersPanel } from '../panels/RemindersPanel';
import { api, errorText } from '../../api/client';
import { groupByFolder, useConversations } from '../../state/conversations';
import { selectConversation } from '../../state/sync';
import { contextOf } from '../../shortcuts';
import { shortcutFor, type ShortcutAction } from '../../../shared/shortcuts';

/** What each shortcut does (shortcuts.ts says which keys). */
function runShortcut(action: ShortcutAction): void {
  const ui = useUi.getState();
  const conversations = useConversations.getState();
  switch (action) {
    case 'new':
      ui.openDialog({ kind: 'new' });
      return;
    case 'search':
      document.querySelector<HTMLInputElement>('input[aria-label="Search conversations"]')?.focus();
      return;
    case 'previous':
    case 'next': {
      const order = groupByFolder(conversations.list, conversations.search).flatMap((g) => g.conversations.map((c) => c.id));
      if (!order.length) return;
      const at = conversations.selectedId ? order.indexOf(conversations.selectedId) : -1;
      const next = action === 'next' ? Math.min(order.length - 1, at + 1) : at === -1 ? order.length - 1 : Math.max(0, at - 1);
      if (order[next] && order[next] !== conversations.selectedId) selectConversation(order[next]!);
      return;
    }
    case 'approve':
    case 'deny': {
      const waiting = useApprovals.getState().list.find((a) => a.conversationId === conversations.selectedId);
      if (!waiting) {
        ui.notify('Nothing in this conversation is waiting for you.', 'info');
        return;
      }
      if (action === 'approve' && waiting.kind === 'approval') {
        api()
          .decideApproval({ approvalId: waiting.approvalId, decision: 'approve' })
          .catch((err: unknown) => ui.notify(errorText(err)));
        return;
      }
      // A deny needs its reason field (on the card in view); a question, a file pick or a secret needs its card.
      const reason = document.querySelector<HTMLInputElement>(`[data-approval-id="${CSS.escape(waiting.approvalId)}"] input[aria-label^="Reason for"]`);
      if (action === 'deny' && reason) reason.focus();
      else useApprovals.getState().focus(waiting.approvalId);
      return;
    }
  }
}
import { GoalsPanel } from '../panels/GoalsPanel';
import { BrowserPanel } from '../panels/BrowserPanel';
import { NARROW_PX, PANEL, SIDEBAR, useLayout } from './layout';
import { Splitter } from './Splitter';
import { useTheme } from './theme';

/** Whether the window is narrower than NARROW_PX (the right panel is then a drawer), or than `px` when given. */
function useNarrow(px = NARROW_PX): boolean {
  const query = `(max-width: ${px - 1}px)`;
  const [narrow, setNarrow] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const mq = window.matchMedia(query);
    const on = () => setNarrow(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, [query]);
  return narrow;
}

/** The machine this page drives, when `deskhand web --remote` serves it (remote-host.ts adds the meta tag). */
const REMOTE_MACHINE = document.querySelector('meta[name="deskhand-remote"]')?.getAttribute('content') ?? null;

/** Below this width the page is laid out for a phone. */
const PHONE_PX = 600;

export function App() {
  const view = useUi((s) => s.view);
  const panelOpen = useUi((s) => s.panelOpen);
  const needsSetup = useSettings((s) => s.view?.firstRun ?? false);
  const dismissed = useUi((s) => s.firstRunDismissed);
  const firstRun = needsSetup && !dismissed;
  const viewing = useCompositions((s) => s.open !== null) && view === 'chat';
  const layout = useLayout();
  const narrow = useNarrow();
  // A phone (a paired device, issue 51): one column; the sidebar is a drawer over the conversation, closed when a
  // conversation is chosen (styles.css, "Phone").
  const phone = useNarrow(PHONE_PX);
  const selectedId = useConversations((s) => s.selectedId);
  const loaded = useConversations((s) => s.loaded);
  const wasLoaded = useRef(loaded);
  useEffect(() => {
    // The first load's own pick (the address's, the last opened or the newest conversation: sync.ts) is not the
    // person's choice: a drawer they opened while the page was still connecting stays open (closing it under their
    // finger made them miss the conversation they were reaching for, e2e/paired-phone.spec.ts).
    const firstPick = loaded && !wasLoaded.current;
    wasLoaded.current = loaded;
    if (phone && !firstPick) useLayout.getState().toggleSidebar(true);
  }, [phone, selectedId, view, loaded]);
  useEffect(() => {
    if (!phone) return;
    // Choosing the conversation already open closes the drawer too.
    const onClick = (e: MouseEvent) => {
      if ((e.target as Element | null)?.closest?.('.sidebar .conv-button')) useLayout.getState().toggleSidebar(true);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, [phone]);
  // ConversationView shows the notices itself, over its transcript.
  const conversationOpen = useConversations((s) => s.selectedId !== null && s.list.some((c) => c.id === s.selectedId));
  useTheme();

  // Opening a composition gives the viewer room: the sidebar and the side panel fold away while it is open, and come
  // back as they were when it closes.
  useEffect(() => {
    if (!viewing) return;
    const before = { panel: useUi.getState().panelOpen, sidebarCollapsed: useLayout.getState().sidebarCollapsed };
    useUi.getState().togglePanel(false);
    useLayout.getState().toggleSidebar(true);
    return () => {
      useUi.getState().togglePanel(before.panel);
      useLayout.getState().toggleSidebar(before.sidebarCollapsed);
    };
  }, [viewing]);

  // A narrow window starts with the drawer closed, and closes it on becoming narrow: it would cover the conversation.
  // Wide again, the panel is as the person had it on the wide window.
  const wideOpen = useRef<boolean | null>(null);
  useEffect(() => {
    if (narrow) {
      wideOpen.current ??= useUi.getState().panelOpen;
      useUi.getState().togglePanel(false);
    } else if (wideOpen.current !== null) {
      useUi.getState().togglePanel(wideOpen.current);
      wideOpen.current = null;
    }
  }, [narrow]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor(e, contextOf(e.target));
      if (!action) return;
      e.preventDefault();
      runShortcut(action);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div
      className={`app ${phone ? 'phone' : ''} ${panelOpen ? 'with-panel' : ''} ${viewing ? 'with-viewer' : ''} ${narrow ? 'narrow' : ''} ${layout.sidebarCollapsed ? 'sidebar-collapsed' : ''}`}
      style={{ '--sidebar-w': `${layout.sidebarCollapsed ? 0 : layout.sidebarWidth}px`, '--panel-w': `${layout.panelWidth}px` } as CSSProperties}
    >
      <TopBar />
      <ComputerBanner />
      <Sidebar />
      {!layout.sidebarCollapsed && (
        <Splitter
          label="Resize sidebar"
          side="left"
          width={layout.sidebarWidth}
          min={SIDEBAR.min}
          max={SIDEBAR.max}
          onWidth={layout.setSidebarWidth}
          onToggle={() => layout.toggleSidebar(true)}
        />
      )}
      {view === 'settings' ? <SettingsPage /> : view === 'usage' ? <UsagePage /> : firstRun ? <FirstRunPanel /> : <ConversationView />}
      {viewing && <CompositionViewer />}
      {panelOpen && !narrow && (
        <Splitter label="Resize side panel" side="right" width={layout.panelWidth} min={PANEL.min} max={PANEL.max} onWidth={layout.setPanelWidth} onToggle={() => useUi.getState().togglePanel(false)} />
      )}
      {panelOpen && narrow && <div className="drawer-backdrop" aria-hidden="true" onClick={() => useUi.getState().togglePanel(false)} />}
      {panelOpen && (
        <div
          className="panel-stack"
          role={narrow ? 'dialog' : undefined}
          aria-label={narrow ? 'Side panel' : undefined}
          tabIndex={narrow ? -1 : undefined}
          ref={(el) => {
            // The drawer takes focus when it opens so Escape and Tab work inside it.
            if (el && narrow && !el.contains(document.activeElement)) el.focus();
          }}
          onKeyDown={(e) => {
            if (narrow && e.key === 'Escape') useUi.getState().togglePanel(false);
          }}
        >
          <ApprovalsPanel />
          <BrowserPanel />
          <BackgroundTasksPanel />
          <WorkflowsPanel />
          <MissionBoard />
          <GoalsPanel />
          <TodosPanel />
          <RemindersPanel />
          <CompositionsPanel />
        </div>
      )}
      <Dialogs />
      {!(view === 'chat' && !firstRun && conversationOpen) && <Notices />}
    </div>
  );
}

function TopBar() {
  const count = useApprovals((s) => s.list.length);
  const panelOpen = useUi((s) => s.panelOpen);
  const view = useUi((s) => s.view);
  const connection = useUi((s) => s.connection);
  const collapsed = useLayout((s) => s.sidebarCollapsed);
  return (
    <header className="topbar">
      <button
        type="button"
        className="topbar-button icon"
        aria-label={collapsed ? 'Show sidebar' : 'Hide sidebar'}
        aria-expanded={!collapsed}
        title={collapsed ? 'Show sidebar' : 'Hide sidebar'}
        onClick={() => useLayout.getState().toggleSidebar()}
      >
        ☰
      </button>
      <span className="brand">Deskhand</span>
      {REMOTE_MACHINE && (
        <span className="remote-machine" role="status" aria-label={`Driving ${REMOTE_MACHINE}`} title="Everything here runs on that machine: its conversations, files and sandbox">
          on {REMOTE_MACHINE}
          {window.deskhand && (
            <button type="button" className="btn" onClick={() => void api().stopDriving({}).catch(() => undefined)} aria-label={`Disconnect from ${REMOTE_MACHINE}`}>
              Disconnect
            </button>
          )}
        </span>
      )}
      {connection !== 'open' && (
        <span className="conn" role="status">
          {connection === 'connecting' ? (
            'Connecting…'
          ) : connection === 'revoked' ? (
            REMOTE_MACHINE ? (
              window.deskhand
                ? `This computer is no longer paired with ${REMOTE_MACHINE}: pair it again there (deskhand devices pair), then Disconnect and paste the new link in Settings → Devices → Drive another machine.`
                : `This computer is no longer paired with ${REMOTE_MACHINE}: pair it again there (deskhand devices pair) and start deskhand web --remote with the new link.`
            ) : (
              <>
                This device is no longer paired with Deskhand. <a href="/pair">Pair it again</a> with a new code from the desktop.
              </>
            )
          ) : (
            'Disconnected — this page reconnects by itself when Deskhand is back (a restart keeps the address; after --new-address or another --port, open the URL it printed).'
          )}
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
      <button
        type="button"
        className="topbar-button icon"
        aria-label={panelOpen ? 'Hide side panel' : 'Show side panel'}
        aria-expanded={panelOpen}
        title={panelOpen ? 'Hide side panel' : 'Show side panel'}
        onClick={() => useUi.getState().togglePanel()}
      >
        ◧
      </button>
      <button type="button" className="topbar-button" aria-pressed={view === 'usage'} onClick={() => useUi.getState().setView(view === 'usage' ? 'chat' : 'usage')}>
        Usage
      </button>
      <button type="button" className="topbar-button" aria-pressed={view === 'settings'} onClick={() => useUi.getState().setView(view === 'settings' ? 'chat' : 'settings')}>
        Settings
      </button>
    </header>
  );
}

