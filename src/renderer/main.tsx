import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { initApi } from './api/client';
import { App } from './components/App';
import { startSync } from './state/sync';
import './styles.css';

initApi();
startSync();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
