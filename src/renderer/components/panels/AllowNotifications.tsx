/**
 * In `deskhand web` only: a button that asks the browser for permission to notify, so a request waiting while the tab
 * is in the background raises a notification (state/page-notify.ts). Shown until the person answered the browser.
 */
import { useState } from 'react';
import { pageNotificationsAvailable } from '../../state/page-notify';

export function AllowNotifications() {
  const [permission, setPermission] = useState(() => (pageNotificationsAvailable() ? Notification.permission : 'unavailable'));
  if (permission !== 'default') return null;
  // In the panel's title line (its corner), so an empty panel stays one line high.
  return (
    <button
      type="button"
      className="btn small panel-corner"
      aria-label="Notify me in this browser"
      title="Notify me in this browser when a request waits while this tab is in the background"
      onClick={() => void Notification.requestPermission().then(setPermission)}
    >
      Notify me
    </button>
  );
}
