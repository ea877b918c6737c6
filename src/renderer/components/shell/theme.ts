/**
 * The theme, always applied as `data-theme="light|dark"` on <html> (styles.css holds the light palette on `:root`
 * and the one dark palette under `[data-theme='dark']`). Settings' `light` or `dark` forces it; `system` (the
 * default) resolves through `matchMedia('(prefers-color-scheme: dark)')` and follows the OS when it changes.
 */
import { useEffect } from 'react';
import { useSettings } from '../../state/settings';

type ThemeSetting = 'system' | 'light' | 'dark';

const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The theme a setting means right now. */
export function resolveTheme(setting: ThemeSetting, osPrefersDark: boolean): 'light' | 'dark' {
  return setting === 'system' ? (osPrefersDark ? 'dark' : 'light') : setting;
}

export function applyTheme(setting: ThemeSetting): void {
  document.documentElement.dataset.theme = resolveTheme(setting, window.matchMedia(DARK_QUERY).matches);
}

export function useTheme(): void {
  const theme = useSettings((s) => s.view?.settings.theme ?? 'system');
  useEffect(() => {
    applyTheme(theme);
    if (theme !== 'system') return;
    const query = window.matchMedia(DARK_QUERY);
    const follow = () => applyTheme(theme);
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, [theme]);
}
