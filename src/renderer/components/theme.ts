/**
 * The theme Settings asks for, applied as `data-theme` on <html>: absent follows the OS (`prefers-color-scheme`),
 * `light` or `dark` force it. styles.css holds both palettes as custom properties.
 */
import { useEffect } from 'react';
import { useSettings } from '../state/settings';

export function useTheme(): void {
  const theme = useSettings((s) => s.view?.settings.theme ?? 'system');
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
    else delete root.dataset.theme;
  }, [theme]);
}
