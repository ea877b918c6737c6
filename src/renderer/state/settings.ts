import { create } from 'zustand';
import type { SettingsView } from '../../shared/contract';

interface SettingsState {
  view: SettingsView | null;
  set(view: SettingsView): void;
}

export const useSettings = create<SettingsState>((set) => ({
  view: null,
  set: (view) => set({ view }),
}));

/** The provider and model new runs will use, in a few words for the header. */
export function activeModelLabel(view: SettingsView | null): string {
  if (!view) return '';
  if (view.override) return `${view.override.provider} · ${view.override.model}`;
  const p = view.settings.activeProvider;
  return `${p} · ${view.settings.providers[p].model}`;
}

/** Why a new message would fail before it is sent, or null when a provider is ready. */
export function providerProblem(view: SettingsView | null): string | null {
  if (!view || view.override) return null;
  const p = view.settings.activeProvider;
  if (p !== 'openai-compatible' && !view.keys[p].set) return `No API key for ${p === 'anthropic' ? 'Anthropic' : 'OpenAI'} yet.`;
  if (p === 'openai-compatible' && !view.settings.providers[p].baseURL) return 'The OpenAI-compatible provider has no base URL.';
  return null;
}
