/**
 * /tools: what this conversation's agent may use — each tool's family, risk tier, whether a call asks under the
 * conversation's policy and whether its schema is loaded — its families with their toggles, the project instructions
 * its prompt carries, and (on request) the system prompt in full. Opened from the header's Tools button or by typing
 * `/tools` in the composer. The header's family toggles (FamilyToggles) switch the families that are off by default.
 */
import { useState } from 'react';
import type { ConversationToolsView, InstructionsView, ToolFamilyView } from '../../../shared/contract/tools';
import { api, errorText } from '../../api/client';
import { familyLabel, familyOn, useConversationTools } from '../../state/conversation-tools';
import './tools.css';

const STATE_LABEL: Record<ToolFamilyView['state'], string> = {
  default: 'always loaded',
  enabled: 'on in this conversation',
  profile: 'on by the agent profile',
  deferred: 'loads on demand',
  off: 'off',
};

const LOAD_LABEL: Record<ConversationToolsView['tools'][number]['load'], string> = { loaded: 'loaded', deferred: 'on demand', off: 'off' };

export function ToolsPanel() {
  const open = useConversationTools((s) => s.panelOpen);
  const view = useConversationTools((s) => s.view);
  const error = useConversationTools((s) => s.error);
  if (!open) return null;
  return (
    <section className="tools-panel" aria-label="Tools of this conversation">
      <header className="tools-panel-head">
        <h2>Tools</h2>
        {view && (
          <span className="muted small">
            {view.tools.length} tools, {view.tools.filter((t) => t.load === 'loaded').length} loaded · policy {view.policy} · “asks”: whether a call waits for your
            approval under it
          </span>
        )}
        <span className="spacer" />
        <button type="button" className="link-button" onClick={() => useConversationTools.getState().openPanel(false)}>
          Close
        </button>
      </header>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {!view ? (
        !error && (
          <p className="muted small" role="status">
            Loading the tools of this conversation…
          </p>
        )
      ) : (
        <>
          <Families view={view} />
          <Instructions instructions={view.instructions} conversationId={view.conversationId} />
          <ToolTable view={view} />
          <PromptView conversationId={view.conversationId} />
        </>
      )}
    </section>
  );
}

function FamilySwitch({ family, label }: { family: ToolFamilyView; label: string }) {
  const busy = useConversationTools((s) => s.busy.includes(family.name));
  const on = familyOn(family.state);
  return (
    <label className="family-switch" title={family.summary}>
      <input
        type="checkbox"
        role="switch"
        aria-label={label}
        checked={on}
        disabled={busy || family.state === 'profile' || family.loads === 'always'}
        onChange={(e) => void useConversationTools.getState().setFamily(family.name, e.target.checked)}
      />
      <span aria-hidden="true">{familyLabel(family.name)}</span>
    </label>
  );
}

/** The header's toggles: the families off until enabled (browser, computer use). */
export function FamilyToggles() {
  const view = useConversationTools((s) => s.view);
  if (!view) return null;
  const off = view.families.filter((f) => f.loads === 'off');
  if (off.length === 0) return null;
  return (
    <span className="family-toggles" role="group" aria-label="Tool families">
      {off.map((f) => (
        <FamilySwitch key={f.name} family={f} label={`${familyLabel(f.name)} tools`} />
      ))}
    </span>
  );
}

function Families({ view }: { view: ConversationToolsView }) {
  return (
    <details className="tools-section" open>
      <summary>Families</summary>
      <p className="muted small">
        Always-loaded families are in every request. The others are listed to the model by name; search_tools (or a call of one of their tools) loads
        them. Turning one on puts its schemas in the next request.
      </p>
      <ul className="family-list" aria-label="Tool families of this conversation">
        {view.families.map((f) => (
          <li key={f.name} className="family-row">
            {f.loads === 'always' ? <span className="family-name">{familyLabel(f.name)}</span> : <FamilySwitch family={f} label={`${familyLabel(f.name)} tools`} />}
            <span className="chip">{STATE_LABEL[f.state]}</span>
            <span className="muted small">
              {f.loadedTools}/{f.tools} loaded · {f.summary}
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}

function ToolTable({ view }: { view: ConversationToolsView }) {
  return (
    <details className="tools-section" open>
      <summary>Tools ({view.tools.length})</summary>
      <table className="tools-table" aria-label="Tools this conversation may use">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Family</th>
            <th scope="col">Tier</th>
            <th scope="col">Asks</th>
            <th scope="col">Loaded</th>
          </tr>
        </thead>
        <tbody>
          {view.tools.map((t) => (
            <tr key={t.name} className={`load-${t.load}`}>
              <th scope="row">
                <code>{t.name}</code>
              </th>
              <td>{t.family}</td>
              <td>{t.tier}</td>
              <td>{t.asks}</td>
              <td>{LOAD_LABEL[t.load]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** The project instruction files the prompt carries, with where they come from and what was cut or refused. */
export function Instructions({ instructions, conversationId }: { instructions: InstructionsView; conversationId?: string }) {
  const { files, refused, capBytes } = instructions;
  const [trustError, setTrustError] = useState<string | null>(null);
  // Workspace files the person has not trusted (a cloned repository's, or changed since trusting): they reach the
  // model as untrusted content until trusted here or with `deskhand instructions trust`.
  const untrustedHere = files.filter((f) => f.scope === 'workspace' && !f.trusted);
  async function trust() {
    if (!conversationId) return;
    try {
      setTrustError(null);
      const view = await api().trustInstructions({ conversationId });
      const tools = useConversationTools.getState();
      if (tools.conversationId === conversationId) useConversationTools.setState({ view, error: null });
    } catch (err) {
      setTrustError(errorText(err));
    }
  }
  return (
    <details className="tools-section" open>
      <summary>Project instructions ({files.length})</summary>
      {files.length === 0 && refused.length === 0 ? (
        <p className="muted small">No AGENTS.md or CLAUDE.md in this folder, the workspace above it, or the Deskhand data folder. One there would be loaded into the prompt.</p>
      ) : (
        <ul className="instruction-list" aria-label="Project instruction files in use">
          {files.map((f) => (
            <li key={f.path}>
              <code>{f.path}</code>{' '}
              <span className="chip">
                {f.scope === 'personal' ? 'personal' : f.scope === 'outside' ? 'outside the workspace: untrusted' : f.trusted ? 'workspace' : 'workspace: not yet trusted'}
              </span>{' '}
              <span className="muted small">
                {f.cut
                  ? `Cut: only the first ${f.loadedBytes} of its ${f.size} bytes are loaded (at most ${capBytes.perFile} bytes of one file, ${capBytes.total} in all).`
                  : `${f.size} bytes, all loaded.`}
              </span>
            </li>
          ))}
          {refused.map((r) => (
            <li key={r.path}>
              <code>{r.path}</code> <span className="chip">not loaded</span> <span className="muted small">{r.reason}</span>
            </li>
          ))}
        </ul>
      )}
      {conversationId && untrustedHere.length > 0 && (
        <p className="small">
          <span className="muted">Until you trust them (each is pinned by its content; a change asks again), these reach the agent as untrusted content and make its run tainted. </span>
          <button type="button" className="btn" onClick={() => void trust()}>
            Trust these instructions
          </button>
          {trustError && (
            <span className="error-text" role="alert">
              {' '}
              {trustError}
            </span>
          )}
        </p>
      )}
    </details>
  );
}

/** The system prompt as the next request carries it (`deskhand prompt show`), fetched when asked for. */
export function PromptView({ conversationId }: { conversationId?: string }) {
  const [prompt, setPrompt] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function show() {
    try {
      setError(null);
      setPrompt((await api().getSystemPrompt(conversationId ? { conversationId } : {})).prompt);
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <div className="tools-section">
      {prompt === null ? (
        <button type="button" className="btn" onClick={() => void show()}>
          Show the system prompt
        </button>
      ) : (
        <>
          <button type="button" className="link-button" onClick={() => setPrompt(null)}>
            Hide the system prompt
          </button>
          <pre className="prompt-text" aria-label="System prompt" tabIndex={0}>
            {prompt}
          </pre>
        </>
      )}
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
