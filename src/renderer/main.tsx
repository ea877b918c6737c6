import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { initApi } from './api/client';
import { App } from './components/shell/App';
import { applyTheme } from './components/shell/theme';
import { startSync } from './state/sync';
import './styles.css';

// The OS's theme from the first paint; Settings' choice applies once it is loaded.
applyTheme('system');
initApi();
startSync();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
